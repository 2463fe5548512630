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
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      "User-Agent": USER_AGENT,
      "X-Service-Event": claim.eventType,
      "X-Service-Event-Id": claim.eventId,
      "X-Service-Timestamp": String(timestamp)
    }
    const request: AttemptRequest = { url: claim.url, headers, body, timeoutMs: RECEIVER_TIMEOUT_MS }
    return Effect.map(signer.sign(current, timestamp, body), (signature) => {
      headers["X-Service-Signature"] = signature
      return request
    }).pipe(
      Effect.tap(() =>
        previous === null
          ? Effect.void
          : Effect.map(signer.sign(previous, timestamp, body), (signature) => {
              headers["X-Service-Signature-Previous"] = signature
            })
      )
    )
  })
