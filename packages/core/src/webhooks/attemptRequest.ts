/**
 * The HTTP request of one attempt (spec "Delivery request"): the stored payload bytes, signed
 * over `{timestamp}.{body}` with the current secret and, during the rotation window, also with
 * the previous one.
 */
import { Effect } from "effect"
import type { ClaimedDelivery } from "./Delivery.js"
import { RECEIVER_TIMEOUT_MS } from "./DeliveryState.js"
import { signingSecrets } from "./Endpoint.js"
import { WebhookSigner } from "./WebhookSigner.js"
import type { AttemptRequest } from "./WebhookTransport.js"

export const USER_AGENT = "Frank-Webhooks/1"

const encoder = new TextEncoder()

export const attemptRequest = (claim: ClaimedDelivery, now: number): Effect.Effect<AttemptRequest> =>
  Effect.flatMap(WebhookSigner, (signer) => {
    const timestamp = Math.floor(now / 1000)
    const body = encoder.encode(claim.payload)
    const { current, previous } = signingSecrets(claim, now)
    const request = (signature: string, previousSignature: string | null): AttemptRequest => {
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
    const signed = signer.sign(current, timestamp, body)
    return previous === null
      ? Effect.map(signed, (signature) => request(signature, null))
      : Effect.zipWith(signed, signer.sign(previous, timestamp, body), request)
  })
