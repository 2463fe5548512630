/**
 * Webhook signatures (spec "Delivery request"): `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{raw body}")>`
 * where the HMAC key is the UTF-8 bytes of the whole secret string (docs/contract.md §5). Web Crypto
 * only, so it runs on every runtime core supports.
 */
import { hmacKeyCache } from "./internal/hmacKeys.js"

const encoder = new TextEncoder()

const toHex = (bytes: ArrayBuffer): string => {
  const view = new Uint8Array(bytes)
  let out = ""
  for (const b of view) out += b.toString(16).padStart(2, "0")
  return out
}

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

/** The bytes that are signed: `{timestamp}.` followed by the raw body bytes. */
export const signedBytes = (timestampSeconds: number, rawBody: Uint8Array | string): Uint8Array<ArrayBuffer> =>
  concat(encoder.encode(`${timestampSeconds}.`), typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody)

/** Frank's key is the UTF-8 of the whole secret string. */
const hmacKey = hmacKeyCache((secret) => encoder.encode(secret))

/** Frank's own signature of a delivery: HMAC-SHA256 of `timestamp.body`, hex. */
export const sign = async (secret: string, timestampSeconds: number, rawBody: Uint8Array | string): Promise<string> => {
  const key = await hmacKey(secret)
  const mac = await crypto.subtle.sign("HMAC", key, signedBytes(timestampSeconds, rawBody))
  return `sha256=${toHex(mac)}`
}

/** Compares two strings in time independent of where they differ. */
export const constantTimeEqual = (a: string, b: string): boolean => {
  const x = encoder.encode(a)
  const y = encoder.encode(b)
  let diff = x.length ^ y.length
  const n = Math.max(x.length, y.length)
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}
