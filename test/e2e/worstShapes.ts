/**
 * Request bodies of the worst shape an operation's schema allows a client to try, up to a byte
 * budget (issue 31): one array as long as the budget allows, an object with as many keys, nesting
 * as deep as the host accepts (64) and as wide as the budget, strings as long. Built as text (a
 * 1 MiB body in a few milliseconds) from the operation's JSON Schema in /openapi.json.
 */
import fc from "fast-check"
import { type JsonSchema, resolveRef } from "./fuzz/schemaArbitrary.js"

export type Shape = "long-array" | "many-keys" | "deep-and-wide" | "long-string" | "top-level-array"

export interface ShapeSpec {
  readonly shape: Shape
  /** Which property of the body carries the shape (index, modulo the properties). */
  readonly field: number
  /** The repeated element of arrays: JSON text. */
  readonly element: string
  /** Nesting depth for `deep-and-wide` (the host refuses more than 64). */
  readonly depth: number
}

export const shapeSpec: fc.Arbitrary<ShapeSpec> = fc.record({
  shape: fc.constantFrom<Shape>("long-array", "many-keys", "deep-and-wide", "long-string", "top-level-array"),
  field: fc.nat({ max: 50 }),
  element: fc.constantFrom("1", '"a"', "{}", "[]", "null", '{"x":1}', '"billing:read"', "true", "-1.5e300"),
  depth: fc.integer({ min: 1, max: 60 })
})

/** `count` copies of `item` joined by commas, as many as fit in `budget` characters. */
const repeatWithin = (item: string, budget: number) => {
  const count = Math.max(0, Math.floor((budget + 1) / (item.length + 1)))
  return new Array(count).fill(item).join(",")
}

/** The body's properties from the operation's request schema (none for an operation without a body). */
export const bodyProperties = (doc: JsonSchema, op: JsonSchema): ReadonlyArray<string> => {
  const schema = resolveRef(doc, op.requestBody?.content?.["application/json"]?.schema ?? {})
  const alternatives: ReadonlyArray<JsonSchema> = schema.anyOf ?? [schema]
  return [...new Set(alternatives.flatMap((s) => Object.keys(resolveRef(doc, s).properties ?? {})))]
}

/** A JSON body of about `bytes` bytes (never more) of the given shape. */
export const worstBody = (properties: ReadonlyArray<string>, spec: ShapeSpec, bytes: number): string => {
  const field = properties.length === 0 ? "x" : properties[spec.field % properties.length]!
  const open = `{${JSON.stringify(field)}:`
  const budget = bytes - open.length - 2
  switch (spec.shape) {
    case "long-array":
      return `${open}[${repeatWithin(spec.element, budget - 2)}]}`
    case "top-level-array":
      return `[${repeatWithin(spec.element, bytes - 2)}]`
    case "long-string":
      return `${open}"${"a".repeat(budget - 2)}"}`
    case "many-keys": {
      const keys: string[] = []
      let used = 2
      for (let i = 0; used + 16 < bytes; i++) {
        const entry = `"k${i}":${spec.element}`
        keys.push(entry)
        used += entry.length + 1
      }
      return `{${keys.join(",")}}`
    }
    case "deep-and-wide": {
      const nested = `${"[".repeat(spec.depth)}${spec.element}${"]".repeat(spec.depth)}`
      return `${open}[${repeatWithin(nested, budget - 2)}]}`
    }
  }
}
