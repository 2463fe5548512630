/**
 * Webhook signatures on node:crypto: the synchronous HMAC costs a few µs and no thread-pool hop,
 * against Web Crypto's async job per signature (core's default). Same bytes: Frank's key is the
 * UTF-8 of the whole secret string and the message `{timestamp}.` followed by the body; the
 * Standard Webhooks key is core's `standardKeyBytes` of the secret and the message
 * `{msgId}.{timestamp}.` followed by the body.
 */
import { createHmac } from "node:crypto"
import { WebhookSigning } from "@frank/core"
import { Effect, Layer } from "effect"

/** Frank's signature header value, computed synchronously. */
export const signNow: WebhookSigning.SignNow = (secret, timestampSeconds, body) =>
  `sha256=${createHmac("sha256", secret).update(`${timestampSeconds}.`, "utf8").update(body).digest("hex")}`

/** Decoded standard keys by secret, so a batch does not decode the same secret per signature. Bounded. */
const MAX_CACHED_KEYS = 1024
const standardKeys = new Map<string, Uint8Array>()

const standardKey = (secret: string): Uint8Array => {
  const cached = standardKeys.get(secret)
  if (cached !== undefined) return cached
  if (standardKeys.size >= MAX_CACHED_KEYS) standardKeys.clear()
  // Throws for a secret that is not base64: that attempt's defect, and nothing cached.
  const key = WebhookSigning.standardKeyBytes(secret)
  standardKeys.set(secret, key)
  return key
}

/** The Standard Webhooks signature, computed synchronously. */
export const signStandardNow: WebhookSigning.SignStandardNow = (secret, messageId, timestampSeconds, body) =>
  `${WebhookSigning.STANDARD_SIGNATURE_VERSION},${createHmac("sha256", standardKey(secret))
    .update(`${messageId}.${timestampSeconds}.`, "utf8")
    .update(body)
    .digest("base64")}`

/** The signer itself (no Effect needed to build it). */
export const make: WebhookSigning.WebhookSignerShape = {
  sign: (secret, timestampSeconds, body) => Effect.sync(() => signNow(secret, timestampSeconds, body)),
  signEach: WebhookSigning.signEachNow(signNow),
  signStandard: (secret, messageId, timestampSeconds, body) =>
    Effect.sync(() => signStandardNow(secret, messageId, timestampSeconds, body)),
  signStandardEach: WebhookSigning.signStandardEachNow(signStandardNow)
}

/** `WebhookSigner` on node:crypto. */
export const layer: Layer.Layer<WebhookSigning.WebhookSigner> = Layer.succeed(WebhookSigning.WebhookSigner, make)
