/**
 * Whether an error answer is one /openapi.json documents for its operation: the status is listed
 * and its `code` is in that status's enum. The table behind the document (core http/errors/errorCodes.ts)
 * is written by hand, so the fuzz run checks every 4xx it provokes against it: a code a handler
 * answers but the table forgot fails the run instead of surprising a generated client.
 */
import { type JsonSchema, resolveRef } from "./schemaArbitrary.js"

/** The machine codes the document lists for `status` of the operation, or undefined when the status is not listed. */
export const documentedCodes = (
  doc: JsonSchema,
  method: string,
  path: string,
  status: number
): ReadonlySet<string> | undefined => {
  const response = doc.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(status)]
  if (response === undefined) return undefined
  const schema = resolveRef(doc, response.content?.["application/json"]?.schema ?? {})
  const parts: ReadonlyArray<JsonSchema> = schema.allOf ?? [schema]
  const codes = parts.flatMap((p: JsonSchema) => resolveRef(doc, p).properties?.code?.enum ?? [])
  return new Set(codes)
}

/** Why an answer is not documented, or undefined when it is (2xx and 3xx need no code). */
export const undocumented = (
  doc: JsonSchema,
  method: string,
  path: string,
  status: number,
  text: string
): string | undefined => {
  if (status < 400) return undefined
  const codes = documentedCodes(doc, method, path, status)
  if (codes === undefined) return `status ${status} is not documented`
  let code: unknown
  try {
    code = JSON.parse(text)?.code
  } catch {
    return undefined // the envelope check reports a body that is not JSON
  }
  if (typeof code !== "string") return `status ${status} answered without a code`
  return codes.has(code) ? undefined : `code ${code} is not documented for status ${status}`
}
