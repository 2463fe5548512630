/**
 * How delivery attempts are signed: Frank's `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{body}")>`
 * and the Standard Webhooks `v1,<base64 HMAC-SHA256(key, "{msgId}.{timestamp}.{body}")>`.
 *
 * A reference with a default, so nothing has to provide it: the default is Web Crypto (every
 * runtime core supports). On Node, `NodeWebhookSigner` (adapters) signs synchronously with
 * `node:crypto`; the reference host and embedders on Node provide it. Both produce the same bytes.
 */
import { Context, Effect, Exit } from "effect"
import { sign } from "./signature.js"
import { signStandard } from "./standardSignature.js"

/** One signature to compute: the secret, the timestamp in seconds and the body bytes. */
export interface SignInput {
  readonly secret: string
  readonly timestampSeconds: number
  readonly body: Uint8Array
}

/** One Standard Webhooks signature to compute: a SignInput and the message id it covers (the event id). */
export interface StandardSignInput extends SignInput {
  readonly messageId: string
}

/** A signature computed synchronously: `sha256=<hex>` over `{timestampSeconds}.` and the body bytes. */
export type SignNow = (secret: string, timestampSeconds: number, body: Uint8Array) => string

/** A Standard Webhooks signature computed synchronously: `v1,<base64>` over `{messageId}.{timestampSeconds}.` and the body. */
export type SignStandardNow = (secret: string, messageId: string, timestampSeconds: number, body: Uint8Array) => string

/** The operations of a webhook signer. */
export interface WebhookSignerShape {
  /** Frank's signature (X-Service-Signature) of a body at a timestamp, with the endpoint's secret. */
  readonly sign: (secret: string, timestampSeconds: number, body: Uint8Array) => Effect.Effect<string>
  /**
   * Every input's signature, in order, or the defect that input's signing died with: one bad key
   * fails its own attempt, not the batch. The worker signs a claimed batch through this, so a
   * synchronous signer does the whole batch in one loop (`signEachNow`).
   */
  readonly signEach: (inputs: ReadonlyArray<SignInput>) => Effect.Effect<ReadonlyArray<Exit.Exit<string>>>
  /** The Standard Webhooks signature (`v1,<base64>`) of a message id, timestamp and body. */
  readonly signStandard: (
    secret: string,
    messageId: string,
    timestampSeconds: number,
    body: Uint8Array
  ) => Effect.Effect<string>
  /** `signEach` for the Standard Webhooks scheme: the batch's standard signatures in one call. */
  readonly signStandardEach: (
    inputs: ReadonlyArray<StandardSignInput>
  ) => Effect.Effect<ReadonlyArray<Exit.Exit<string>>>
}

/** `signEach` for a signer that only has an Effect per signature. */
export const signEachWith =
  (signOne: WebhookSignerShape["sign"]): WebhookSignerShape["signEach"] =>
  (inputs) =>
    Effect.forEach(inputs, (i) => Effect.exit(signOne(i.secret, i.timestampSeconds, i.body)))

/** `signStandardEach` for a signer that only has an Effect per signature. */
export const signStandardEachWith =
  (signOne: WebhookSignerShape["signStandard"]): WebhookSignerShape["signStandardEach"] =>
  (inputs) =>
    Effect.forEach(inputs, (i) => Effect.exit(signOne(i.secret, i.messageId, i.timestampSeconds, i.body)))

/** Runs `signNow` on every input in one loop, no Effect per signature; a throw is that input's defect. */
const eachNow = <I>(inputs: ReadonlyArray<I>, signNow: (input: I) => string) =>
  Effect.sync(() =>
    inputs.map((i) => {
      try {
        return Exit.succeed(signNow(i))
      } catch (defect) {
        return Exit.die(defect)
      }
    })
  )

/** `signEach` for a synchronous signer. */
export const signEachNow =
  (signNow: SignNow): WebhookSignerShape["signEach"] =>
  (inputs) =>
    eachNow(inputs, (i) => signNow(i.secret, i.timestampSeconds, i.body))

/** `signStandardEach` for a synchronous signer. */
export const signStandardEachNow =
  (signNow: SignStandardNow): WebhookSignerShape["signStandardEach"] =>
  (inputs) =>
    eachNow(inputs, (i) => signNow(i.secret, i.messageId, i.timestampSeconds, i.body))

const webCryptoSign: WebhookSignerShape["sign"] = (secret, timestampSeconds, body) =>
  Effect.promise(() => sign(secret, timestampSeconds, body))

const webCryptoSignStandard: WebhookSignerShape["signStandard"] = (secret, messageId, timestampSeconds, body) =>
  Effect.promise(() => signStandard(secret, messageId, timestampSeconds, body))

/** The portable signer on Web Crypto (the default of WebhookSigner). */
export const webCryptoWebhookSigner: WebhookSignerShape = {
  sign: webCryptoSign,
  signEach: signEachWith(webCryptoSign),
  signStandard: webCryptoSignStandard,
  signStandardEach: signStandardEachWith(webCryptoSignStandard)
}

/** Signs deliveries; defaults to Web Crypto, NodeWebhookSigner in adapters signs synchronously. */
export class WebhookSigner extends Context.Reference<WebhookSigner>()("@frank/core/WebhookSigner", {
  defaultValue: (): WebhookSignerShape => webCryptoWebhookSigner
}) {}
