/**
 * Webhook signatures on node:crypto: the synchronous HMAC costs a few µs and no thread-pool hop,
 * against Web Crypto's async job per signature (core's default). Same bytes: the key is the UTF-8
 * of the whole secret string and the message `{timestamp}.` followed by the body.
 */
import { createHmac } from "node:crypto"
import { type SignNow, signEachNow, WebhookSigner, type WebhookSignerShape } from "@frank/core"
import { Effect, Layer } from "effect"

export const nodeSignNow: SignNow = (secret, timestampSeconds, body) =>
  `sha256=${createHmac("sha256", secret).update(`${timestampSeconds}.`, "utf8").update(body).digest("hex")}`

export const nodeWebhookSigner: WebhookSignerShape = {
  sign: (secret, timestampSeconds, body) => Effect.sync(() => nodeSignNow(secret, timestampSeconds, body)),
  signEach: signEachNow(nodeSignNow)
}

export const NodeWebhookSigner = Layer.succeed(WebhookSigner, nodeWebhookSigner)
