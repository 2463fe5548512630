/**
 * How delivery attempts are signed: `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{body}")>`.
 *
 * A reference with a default, so nothing has to provide it: the default is Web Crypto (every
 * runtime core supports), whose HMAC is an async job on a thread pool — a promise and a thread
 * hop per signature. On Node, `NodeWebhookSigner` (adapters) signs synchronously with
 * `node:crypto`; the reference host and embedders on Node provide it. Both produce the same bytes
 * (adapters' tests compare them).
 */
import { Context, Effect } from "effect"
import { sign } from "./signature.js"

/** A signature computed synchronously: `sha256=<hex>` over `{timestampSeconds}.` and the body bytes. */
export type SignNow = (secret: string, timestampSeconds: number, body: Uint8Array) => string

export interface WebhookSignerShape {
  readonly sign: (secret: string, timestampSeconds: number, body: Uint8Array) => Effect.Effect<string>
  /**
   * The same signature computed synchronously, for signers that can (node:crypto). Optional: with
   * it the delivery worker signs a claimed batch in a plain loop instead of an Effect per attempt
   * (bench/webhooks). It must return exactly what `sign` succeeds with.
   */
  readonly signNow?: SignNow
}

export const webCryptoWebhookSigner: WebhookSignerShape = {
  sign: (secret, timestampSeconds, body) => Effect.promise(() => sign(secret, timestampSeconds, body))
}

export class WebhookSigner extends Context.Reference<WebhookSigner>()("@frank/core/WebhookSigner", {
  defaultValue: (): WebhookSignerShape => webCryptoWebhookSigner
}) {}
