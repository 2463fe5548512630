/**
 * Ways to break a well-formed request: wrong types, missing and extra fields, huge and unusual
 * Unicode strings, deep nesting, broken JSON, wrong content types, odd query strings and path ids.
 * Each mutation answers the request to send instead.
 */
import fc from "fast-check"
import { JSON_TYPES, OTHER_TYPES } from "../mediaTypes.js"
import { shapeSpec, worstBody } from "../worstShapes.js"

/** encodeURIComponent, except that a lone surrogate becomes raw bytes that are not UTF-8 (odd input, on purpose). */
export const encode = (s: string): string => {
  try {
    return encodeURIComponent(s)
  } catch {
    return [...s].map((c) => `%${(c.charCodeAt(0) & 0xff).toString(16).padStart(2, "0")}`).join("")
  }
}

export interface FuzzRequest {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly contentType: string | undefined
  readonly body: string | undefined
}

const weird = fc.constantFrom(
  "",
  " ",
  "\u0000",
  "null",
  "-1",
  "1e309",
  "NaN",
  "0x10",
  "../../etc/passwd",
  "%",
  "%ZZ",
  "%2e%2e%2f",
  "\u202e\u0301\ud83d\ude00",
  "\ud800",
  "💸".repeat(50),
  "𝕱𝖗𝖆𝖓𝖐",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "a".repeat(5000)
)

const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.integer(),
  fc.string(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.constant({}),
  weird
)

/** JSON nested `depth` levels deep, built as text (JSON.stringify would overflow the stack first). */
const nestedJson = (depth: number): string => {
  let open = ""
  let close = ""
  for (let i = 0; i < depth; i++) {
    open += i % 2 === 0 ? "[" : '{"a":'
    close = (i % 2 === 0 ? "]" : "}") + close
  }
  return `${open}1${close}`
}

type Body = Record<string, unknown>

/** The worst 1 MiB body of a shape (issue 31), built around the body's fields. */
const worstShaped = shapeSpec.map((spec) => (b: Body) => worstBody(Object.keys(b), spec, 1024 * 1024 - 64))

/** A mutation of a JSON body (an object the schema arbitrary produced). */
const smallMutation: fc.Arbitrary<(body: Body) => string> = fc.oneof(
  fc.constant((b: Body) => JSON.stringify(b)),
  fc.tuple(fc.nat(), wrongType).map(([i, v]) => (b: Body) => {
    const keys = Object.keys(b)
    return JSON.stringify(keys.length === 0 ? { x: v } : { ...b, [keys[i % keys.length]!]: v })
  }),
  fc.nat().map((i) => (b: Body) => {
    const keys = Object.keys(b)
    const copy = { ...b }
    if (keys.length > 0) delete copy[keys[i % keys.length]!]
    return JSON.stringify(copy)
  }),
  fc.tuple(fc.string({ maxLength: 20 }), wrongType).map(
    ([k, v]) =>
      (b: Body) =>
        JSON.stringify({ ...b, [k]: v })
  ),
  fc.integer({ min: 10, max: 100_000 }).map((d) => () => nestedJson(d)),
  fc.constantFrom("{", "[1,", '{"a":}', "nul", '"\\ud800"', "{}}", "\u0000", "", "   ").map((raw) => () => raw),
  fc.string({ unit: "binary", maxLength: 300 }).map((s) => () => s),
  fc.constant(() => JSON.stringify([1, 2, 3])),
  fc.constant(() => "null"),
  fc.integer({ min: 50_000, max: 400_000 }).map((n) => (b: Body) => JSON.stringify({ ...b, big: "é".repeat(n) }))
)

/** Mostly small mutations; about one body in forty is a worst-shape megabyte. */
export const bodyMutation: fc.Arbitrary<(body: Body) => string> = fc.oneof(
  { arbitrary: smallMutation, weight: 39 },
  { arbitrary: worstShaped, weight: 1 }
)

/** Mostly JSON (so the bodies reach decoding), then every other type a client might send (issue 31). */
export const contentTypes = fc.oneof(
  { arbitrary: fc.constantFrom<string | undefined>(...JSON_TYPES, "application/json; charset=latin1"), weight: 3 },
  { arbitrary: fc.constantFrom<string | undefined>(...OTHER_TYPES), weight: 1 }
)

/** Query strings: generated from the parameters, or broken. */
export const queryMutation = fc.oneof(
  fc.constant((q: string) => q),
  fc.constant((q: string) => q),
  fc.tuple(fc.string({ maxLength: 10 }), weird).map(
    ([k, v]) =>
      (q: string) =>
        `${q}${q ? "&" : ""}${encode(k)}=${encode(v)}`
  ),
  fc
    .constantFrom(
      "limit=-1",
      "limit=1e3",
      "page=0",
      "page=99999999999999999999",
      "limit=",
      "a=%ZZ",
      "&&&",
      "limit=1&limit=2",
      "cursor=%00",
      "dateFrom=yesterday"
    )
    .map((extra) => () => extra)
)

/** Path ids: plausible, foreign, and broken. */
export const pathId = fc.oneof(
  fc.uuid(),
  fc.string({ minLength: 1, maxLength: 40 }).map(encode),
  weird.filter((s) => s.length > 0 && s.length < 200).map(encode),
  fc.constantFrom("%00", "%2F", "..", "%252e", "a%20b", "1", "0", "-1", "x".repeat(300))
)
