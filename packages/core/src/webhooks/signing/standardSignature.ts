/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, "Signature scheme"):
 * `v1,<base64 HMAC-SHA256(key, "{msgId}.{timestamp}.{body}")>`, where the key is the secret with
 * its `whsec_` prefix removed, base64-decoded. Web Crypto only, like Frank's scheme (signature.ts).
 *
 * Secrets made since this scheme exists are `whsec_` + standard base64 of 32 random bytes, which
 * the specification's libraries decode. Older ones are base64url without padding: their key is
 * the same decoding of that alphabet (so Frank can still sign with them during a rotation window),
 * but most libraries refuse the text, so an endpoint switches to this scheme only with a new-format
 * secret (`isStandardSecret`; docs/decisions.md).
 */
import { toBase64 } from "../../access/Secrets.js"
import { hmacKeyCache } from "./internal/hmacKeys.js"
import { SECRET_PREFIX } from "./internal/secretFormat.js"

/** The Standard Webhooks signature version Frank writes. */
export const STANDARD_SIGNATURE_VERSION = "v1"
/** The specification's bounds on a symmetric secret's decoded length. */
export const STANDARD_SECRET_MIN_BYTES = 24
export const STANDARD_SECRET_MAX_BYTES = 64

const encoder = new TextEncoder()

const secretBody = (secret: string) => (secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret)

/**
 * The HMAC key of `secret`: its body base64-decoded, accepting the url-safe alphabet and missing
 * padding too (the key of an older base64url secret). Throws when the body is not base64.
 */
export const standardKeyBytes = (secret: string): Uint8Array<ArrayBuffer> => {
  const body = secretBody(secret).replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "")
  if (!/^[A-Za-z0-9+/]*$/.test(body) || body.length % 4 === 1)
    throw new Error("the webhook secret is not base64 after its whsec_ prefix")
  const bin = atob(body.padEnd(body.length + ((4 - (body.length % 4)) % 4), "="))
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

const STANDARD_SECRET = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * Whether the specification's libraries accept `secret` as it is: `whsec_`, then padded standard
 * base64 of 24 to 64 bytes. Secrets Frank issues now are; base64url ones from before are not.
 */
export const isStandardSecret = (secret: string): boolean => {
  if (!secret.startsWith(SECRET_PREFIX)) return false
  const body = secret.slice(SECRET_PREFIX.length)
  if (!STANDARD_SECRET.test(body)) return false
  const bytes = (body.length / 4) * 3 - (body.endsWith("==") ? 2 : body.endsWith("=") ? 1 : 0)
  return bytes >= STANDARD_SECRET_MIN_BYTES && bytes <= STANDARD_SECRET_MAX_BYTES
}

/** The bytes that are signed: `{msgId}.{timestamp}.` followed by the raw body bytes. */
export const standardSignedBytes = (
  messageId: string,
  timestampSeconds: number,
  rawBody: Uint8Array | string
): Uint8Array<ArrayBuffer> => {
  const head = encoder.encode(`${messageId}.${timestampSeconds}.`)
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody
  const out = new Uint8Array(head.length + body.length)
  out.set(head, 0)
  out.set(body, head.length)
  return out
}

const hmacKey = hmacKeyCache(standardKeyBytes)

/** One Standard Webhooks signature, `v1,<base64>`; rejects when the secret is not base64. */
export const signStandard = async (
  secret: string,
  messageId: string,
  timestampSeconds: number,
  rawBody: Uint8Array | string
): Promise<string> => {
  const key = await hmacKey(secret)
  const mac = await crypto.subtle.sign("HMAC", key, standardSignedBytes(messageId, timestampSeconds, rawBody))
  return `${STANDARD_SIGNATURE_VERSION},${toBase64(new Uint8Array(mac))}`
}
