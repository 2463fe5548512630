/**
 * The company-profile form of the invoices page: per-field validation messages, and the revision
 * conflict shown as the fields where the stored profile differs from what the user entered (the
 * form keeps the user's values with the new revision, so saving again is a deliberate retry).
 */
import type { Invoices } from "@frank/core"
import type { Strings } from "../i18n.js"
import type { CabinetContext } from "../CabinetRequest.js"
import { html, join } from "../html.js"

export const PROFILE_FIELDS = [
  "companyName",
  "inn",
  "kpp",
  "ogrn",
  "legalAddress",
  "postalAddress",
  "email",
  "phone"
] as const
export type ProfileField = (typeof PROFILE_FIELDS)[number]
export type ProfileValues = Partial<Record<ProfileField, string>>

export const valuesOf = (p: Invoices.CompanyProfile | undefined): ProfileValues =>
  Object.fromEntries(PROFILE_FIELDS.map((f) => [f, p?.[f] ?? ""])) as ProfileValues

/**
 * The engine's problems in the page's words (by each issue's code), each under its field; the rest
 * above the form. Without issues (an older engine) the English `field: problem` lines are split.
 */
export const messagesByField = (
  t: Strings,
  issues:
    | ReadonlyArray<{
        readonly field: string
        readonly code: string
        readonly max?: number | undefined
        readonly message: string
      }>
    | undefined,
  messages: ReadonlyArray<string>
) => {
  const byField: Partial<Record<ProfileField, string[]>> = {}
  const general: string[] = []
  const lines =
    issues !== undefined && issues.length > 0
      ? issues.map((i) => ({ field: i.field, text: t.errors.profileProblems[i.code]?.(i.max) ?? i.message }))
      : messages.map((m) => {
          const [field = "", ...rest] = m.split(": ")
          return rest.length === 0 ? { field: "", text: m } : { field, text: rest.join(": ") }
        })
  for (const { field, text } of lines) {
    const known = PROFILE_FIELDS.find((f) => f === field)
    if (known === undefined) general.push(text)
    else byField[known] = [...(byField[known] ?? []), text]
  }
  return { byField, general }
}

/** Fields whose stored value differs from what the user entered, after normalising whitespace. */
export const changedFields = (stored: ProfileValues, entered: ProfileValues): ReadonlyArray<ProfileField> => {
  const norm = (s: string | undefined) => (s ?? "").trim().replace(/\s+/g, " ")
  return PROFILE_FIELDS.filter((f) => norm(stored[f]) !== norm(entered[f]))
}

export const profileForm = (
  ctx: CabinetContext,
  values: ProfileValues,
  revision: number,
  errors: Partial<Record<ProfileField, ReadonlyArray<string>>> = {}
) => {
  const t = ctx.t.invoices
  const field = (f: ProfileField) => {
    const problems = errors[f] ?? []
    const described = problems.length === 0 ? "" : html` aria-invalid="true" aria-describedby="err-${f}"`
    const type = f === "email" ? "email" : f === "phone" ? "tel" : "text"
    return html`<label>${t.fields[f] ?? f} <input name="${f}" type="${type}" value="${values[f]}"${described}></label>${
      problems.length === 0
        ? ""
        : html`<p class="field-error" id="err-${f}" data-testid="error-${f}">${problems.join("; ")}</p>`
    }`
  }
  return html`<form method="post" action="${ctx.base}/invoices/profile" class="stack">
<input type="hidden" name="expectedProfileRevision" value="${revision}">
${join(PROFILE_FIELDS.map(field), "\n")}
<button type="submit">${t.saveProfile}</button></form>`
}
