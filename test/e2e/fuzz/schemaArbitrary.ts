/**
 * fast-check arbitraries from the JSON Schemas of an OpenAPI document: values that fit each
 * operation's declared shapes (the starting point the mutations then break). Covers what
 * Effect's OpenAPI output uses: $ref, type, enum, const, anyOf/oneOf, min/max, lengths, items,
 * properties and required.
 */
import fc from "fast-check"

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is untyped JSON
export type JsonSchema = any

export const resolveRef = (doc: JsonSchema, schema: JsonSchema): JsonSchema => {
  let s = schema
  for (let i = 0; i < 20 && s?.$ref !== undefined; i++)
    s = (s.$ref as string)
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: JsonSchema, part: string) => node?.[part], doc)
  return s ?? {}
}

const stringOf = (s: JsonSchema): fc.Arbitrary<string> => {
  const minLength = s.minLength ?? 0
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 40, 200))
  if (s.format === "uuid") return fc.uuid()
  if (s.format === "date-time") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString())
  return fc.string({ minLength, maxLength, unit: "grapheme" })
}

const numberOf = (s: JsonSchema, integer: boolean): fc.Arbitrary<number> => {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000_000)
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1_000_000)
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) })
    : fc.double({ min, max: Math.max(min, max), noNaN: true })
}

export const arbitraryOf = (doc: JsonSchema, schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> => {
  const s = resolveRef(doc, schema)
  if (depth > 6) return fc.constant(null)
  if (s.const !== undefined) return fc.constant(s.const)
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum)
  const alternatives = s.anyOf ?? s.oneOf
  if (Array.isArray(alternatives) && alternatives.length > 0)
    return fc.oneof(...alternatives.map((a: JsonSchema) => arbitraryOf(doc, a, depth + 1)))
  switch (s.type) {
    case "string":
      return stringOf(s)
    case "integer":
      return numberOf(s, true)
    case "number":
      return numberOf(s, false)
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "array":
      return fc.array(arbitraryOf(doc, s.items ?? {}, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 5, 10)
      })
    case "object": {
      const properties: Record<string, JsonSchema> = s.properties ?? {}
      const required = new Set<string>(s.required ?? [])
      const model: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [k, v] of Object.entries(properties)) model[k] = arbitraryOf(doc, v, depth + 1)
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) })
    }
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}
