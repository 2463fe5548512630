/**
 * How delivery attempts are signed: `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{body}")>`.
 *
 * A reference with a default, so nothing has to provide it: the default is Web Crypto (every
 * runtime core supports). On Node, `NodeWebhookSigner` (adapters) signs synchronously with
 * `node:crypto`; the reference host and embedders on Node provide it. Both produce the same bytes.
 */
import { Context, Effect, Exit } from "effect"
import { sign } from "./signature.js"

/** One signature to compute: the secret, the timestamp in seconds and the body bytes. */
export interface SignInput {
  readonly secret: string
  readonly timestampSeconds: number
  readonly body: Uint8Array
}

/** A signature computed synchronously: `sha256=<hex>` over `{timestampSeconds}.` and the body bytes. */
export type SignNow = (secret: string, timestampSeconds: number, body: Uint8Array) => string

export interface WebhookSignerShape {
  readonly sign: (secret: string, timestampSeconds: number, body: Uint8Array) => Effect.Effect<string>
  /**
   * Every input's signature, in order, or the defect that input's signing died with: one bad key
   * fails its own attempt, not the batch. The worker signs a claimed batch through this, so a
   * synchronous signer does the whole batch in one loop (`signEachNow`).
   */
  readonly signEach: (inputs: ReadonlyArray<SignInput>) => Effect.Effect<ReadonlyArray<Exit.Exit<string>>>
}

/** `signEach` for a signer that only has an Effect per signature. */
export const signEachWith =
  (signOne: WebhookSignerShape["sign"]): WebhookSignerShape["signEach"] =>
  (inputs) =>
    Effect.forEach(inputs, (i) => Effect.exit(signOne(i.secret, i.timestampSeconds, i.body)))

/** `signEach` for a synchronous signer: one loop, no Effect per signature; a throw is that input's defect. */
export const signEachNow =
  (signNow: SignNow): WebhookSignerShape["signEach"] =>
  (inputs) =>
    Effect.sync(() =>
      inputs.map((i) => {
        try {
          return Exit.succeed(signNow(i.secret, i.timestampSeconds, i.body))
        } catch (defect) {
          return Exit.die(defect)
        }
      })
    )

const webCryptoSign: WebhookSignerShape["sign"] = (secret, timestampSeconds, body) =>
  Effect.promise(() => sign(secret, timestampSeconds, body))

export const webCryptoWebhookSigner: WebhookSignerShape = {
  sign: webCryptoSign,
  signEach: signEachWith(webCryptoSign)
}

export class WebhookSigner extends Context.Reference<WebhookSigner>()("@frank/core/WebhookSigner", {
  defaultValue: (): WebhookSignerShape => webCryptoWebhookSigner
}) {}
