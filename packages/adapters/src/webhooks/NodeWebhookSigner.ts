/**
 * Webhook signatures on node:crypto: the synchronous HMAC costs a few µs and no thread-pool hop,
 * against Web Crypto's async job per signature (core's default). Same bytes: Frank's key is the
 * UTF-8 of the whole secret string and the message `{timestamp}.` followed by the body; the
 * Standard Webhooks key is core's `standardKeyBytes` of the secret and the message
 * `{msgId}.{timestamp}.` followed by the body.
 */
import { createHmac } from "node:crypto"
import {
  type SignNow,
  type SignStandardNow,
  signEachNow,
  signStandardEachNow,
  STANDARD_SIGNATURE_VERSION,
  standardKeyBytes,
  WebhookSigner,
  type WebhookSignerShape
} from "@frank/core"
import { Effect, Layer } from "effect"

export const nodeSignNow: SignNow = (secret, timestampSeconds, body) =>
  `sha256=${createHmac("sha256", secret).update(`${timestampSeconds}.`, "utf8").update(body).digest("hex")}`

/** Decoded standard keys by secret, so a batch does not decode the same secret per signature. Bounded. */
const MAX_CACHED_KEYS = 1024
const standardKeys = new Map<string, Uint8Array>()

const standardKey = (secret: string): Uint8Array => {
  const cached = standardKeys.get(secret)
  if (cached !== undefined) return cached
  if (standardKeys.size >= MAX_CACHED_KEYS) standardKeys.clear()
  // Throws for a secret that is not base64: that attempt's defect, and nothing cached.
  const key = standardKeyBytes(secret)
  standardKeys.set(secret, key)
  return key
}

export const nodeSignStandardNow: SignStandardNow = (secret, messageId, timestampSeconds, body) =>
  `${STANDARD_SIGNATURE_VERSION},${createHmac("sha256", standardKey(secret))
    .update(`${messageId}.${timestampSeconds}.`, "utf8")
    .update(body)
    .digest("base64")}`

export const nodeWebhookSigner: WebhookSignerShape = {
  sign: (secret, timestampSeconds, body) => Effect.sync(() => nodeSignNow(secret, timestampSeconds, body)),
  signEach: signEachNow(nodeSignNow),
  signStandard: (secret, messageId, timestampSeconds, body) =>
    Effect.sync(() => nodeSignStandardNow(secret, messageId, timestampSeconds, body)),
  signStandardEach: signStandardEachNow(nodeSignStandardNow)
}

export const NodeWebhookSigner = Layer.succeed(WebhookSigner, nodeWebhookSigner)
