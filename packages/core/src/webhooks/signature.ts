/**
 * Webhook signatures (spec "Delivery request"): `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{raw body}")>`
 * where the HMAC key is the UTF-8 bytes of the whole secret string (docs/contract.md §5). Web Crypto
 * only, so it runs on every runtime core supports.
 */
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

/** Imported HMAC keys by secret: importing costs as much as signing a small body. Bounded. */
const MAX_CACHED_KEYS = 1024
const keys = new Map<string, Promise<CryptoKey>>()

const hmacKey = (secret: string): Promise<CryptoKey> => {
  const cached = keys.get(secret)
  if (cached !== undefined) return cached
  if (keys.size >= MAX_CACHED_KEYS) keys.clear()
  const key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  keys.set(secret, key)
  // A failed import must not stay cached.
  key.catch(() => keys.delete(secret))
  return key
}

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
