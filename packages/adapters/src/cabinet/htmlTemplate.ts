/**
 * The `html` tagged template every cabinet page is written in: each interpolation is escaped
 * unless it already is markup (an `Html` from another `html` template or an explicit `raw()`),
 * so a forgotten escape cannot exist. Arrays of fragments are joined; `null`, `undefined` and
 * `false` render nothing, so `cond && html\`…\`` reads naturally.
 */

/** Markup that is safe to put into a page as is. Only `html` and `raw` make one. */
export class Html {
  /** @internal */
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

/** What a template may interpolate: text (escaped), markup (kept) or lists of either. */
export type HtmlValue = Html | string | number | bigint | null | undefined | false | ReadonlyArray<HtmlValue>

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;"
}

/** Text as HTML: safe inside element content and inside quoted attribute values. */
export const escapeText = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c)

const render = (value: HtmlValue): string => {
  if (value instanceof Html) return value.value
  if (value === null || value === undefined || value === false) return ""
  if (Array.isArray(value)) return (value as ReadonlyArray<HtmlValue>).map(render).join("")
  return escapeText(String(value))
}

/** The tag: literal parts are the author's markup; every interpolated value is escaped. */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<HtmlValue>): Html => {
  let out = strings[0] ?? ""
  for (let i = 0; i < values.length; i++) out += render(values[i] as HtmlValue) + (strings[i + 1] ?? "")
  return new Html(out)
}

/** Trusted markup kept as is (the caller vouches for it): the one explicit way around escaping. */
export const raw = (trusted: string): Html => new Html(trusted)

/** Fragments joined with a separator (escaped when it is text). */
export const join = (parts: ReadonlyArray<HtmlValue>, separator: HtmlValue = ""): Html =>
  new Html(parts.map(render).join(render(separator)))
