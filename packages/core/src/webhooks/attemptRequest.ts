/**
 * The HTTP request of one attempt (spec "Delivery request"): the stored payload bytes, signed
 * over `{timestamp}.{body}` with the current secret and, during the rotation window, also with
 * the previous one.
 */
import { Effect } from "effect"
import type { ClaimedDelivery } from "./Delivery.js"
import { RECEIVER_TIMEOUT_MS } from "./DeliveryState.js"
import { signingSecrets } from "./Endpoint.js"
import { type SignNow, WebhookSigner } from "./WebhookSigner.js"
import type { AttemptRequest } from "./WebhookTransport.js"

export const USER_AGENT = "Frank-Webhooks/1"

const encoder = new TextEncoder()

/** What is signed and how, for `claim` sent at `now`: the timestamp, the body bytes, the secrets. */
const signingInput = (claim: ClaimedDelivery, now: number) => {
  const { current, previous } = signingSecrets(claim, now)
  return { timestamp: Math.floor(now / 1000), body: encoder.encode(claim.payload), current, previous }
}

const requestOf = (
  claim: ClaimedDelivery,
  timestamp: number,
  body: Uint8Array,
  signature: string,
  previousSignature: string | null
): AttemptRequest => {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "X-Service-Event": claim.eventType,
    "X-Service-Event-Id": claim.eventId,
    "X-Service-Timestamp": String(timestamp),
    "X-Service-Signature": signature
  }
  if (previousSignature !== null) headers["X-Service-Signature-Previous"] = previousSignature
  return { url: claim.url, headers, body, timeoutMs: RECEIVER_TIMEOUT_MS }
}

/** The attempt on `claim` sent at `now`, signed by the `WebhookSigner` in context. */
export const attemptRequest = (claim: ClaimedDelivery, now: number): Effect.Effect<AttemptRequest> =>
  Effect.flatMap(WebhookSigner, (signer) => {
    const { timestamp, body, current, previous } = signingInput(claim, now)
    const signed = signer.sign(current, timestamp, body)
    return previous === null
      ? Effect.map(signed, (signature) => requestOf(claim, timestamp, body, signature, null))
      : Effect.zipWith(signed, signer.sign(previous, timestamp, body), (signature, previousSignature) =>
          requestOf(claim, timestamp, body, signature, previousSignature)
        )
  })

/**
 * The same request signed by a synchronous signer (`WebhookSignerShape.signNow`): no Effect per
 * attempt, which the worker's batch path saves on every delivery. Throws what the signer throws.
 */
export const attemptRequestNow = (claim: ClaimedDelivery, now: number, signNow: SignNow): AttemptRequest => {
  const { timestamp, body, current, previous } = signingInput(claim, now)
  return requestOf(
    claim,
    timestamp,
    body,
    signNow(current, timestamp, body),
    previous === null ? null : signNow(previous, timestamp, body)
  )
}
