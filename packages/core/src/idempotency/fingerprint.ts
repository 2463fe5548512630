/**
 * What makes two requests "the same" for a key: the method, the path with its query, and the body
 * compared as canonical JSON (object keys sorted, no spaces), so a client re-serialising the same
 * object in another key order is still recognised. A body that is not JSON is compared as text.
 * The fingerprint is a SHA-256 over the three, computed with Web Crypto (Node, Bun, Deno,
 * browsers alike).
 */
import { Effect } from "effect"

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key])
    return out
  }
  return value
}

/** `body` as canonical JSON when it parses as JSON, else as given ("" for no body). */
export const canonicalBody = (body: string): string => {
  if (body.trim().length === 0) return ""
  try {
    return JSON.stringify(canonical(JSON.parse(body)))
  } catch {
    return body
  }
}

const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("")

/** SHA-256 (hex) of `text`. */
export const sha256Hex = (text: string): Effect.Effect<string> =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(Effect.map(hex))

/** The fingerprint of a request: method, path (with query) and canonical body. */
export const requestFingerprint = (method: string, path: string, body: string): Effect.Effect<string> =>
  sha256Hex(`${method.toUpperCase()}\n${path}\n${canonicalBody(body)}`)
