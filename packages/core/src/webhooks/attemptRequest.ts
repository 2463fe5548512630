/**
 * The HTTP request of one attempt (spec "Delivery request"): the stored payload bytes, signed
 * over `{timestamp}.{body}` with the current secret and, during the rotation window, also with
 * the previous one.
 */
import { Effect, Exit } from "effect"
import type { ClaimedDelivery } from "./Delivery.js"
import { RECEIVER_TIMEOUT_MS } from "./DeliveryState.js"
import { signingSecrets } from "./Endpoint.js"
import { type SignInput, WebhookSigner } from "./WebhookSigner.js"
import type { AttemptRequest } from "./WebhookTransport.js"

export const USER_AGENT = "Frank-Webhooks/1"

const encoder = new TextEncoder()

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

/**
 * The attempts on `claims` sent at `now`, signed by the `WebhookSigner` in context in one call:
 * each claim's request, or the defect its signing died with (that attempt alone fails).
 */
export const attemptRequests = (
  claims: ReadonlyArray<ClaimedDelivery>,
  now: number
): Effect.Effect<ReadonlyArray<Exit.Exit<AttemptRequest>>> =>
  Effect.flatMap(WebhookSigner, (signer) => {
    const timestampSeconds = Math.floor(now / 1000)
    const bodies = claims.map((c) => encoder.encode(c.payload))
    const inputs: Array<SignInput> = []
    // Where claim i's signatures are in `inputs`: the current secret's, and the previous one's or -1.
    const currentAt: Array<number> = []
    const previousAt: Array<number> = []
    claims.forEach((claim, i) => {
      const { current, previous } = signingSecrets(claim, now)
      const body = bodies[i] as Uint8Array
      currentAt.push(inputs.push({ secret: current, timestampSeconds, body }) - 1)
      previousAt.push(previous === null ? -1 : inputs.push({ secret: previous, timestampSeconds, body }) - 1)
    })
    return Effect.map(signer.signEach(inputs), (signed) =>
      claims.map((claim, i) => {
        const current = signed[currentAt[i] as number] as Exit.Exit<string>
        const p = previousAt[i] as number
        const previous = p === -1 ? Exit.succeed(null) : (signed[p] as Exit.Exit<string>)
        return Exit.map(Exit.zip(current, previous), ([signature, previousSignature]) =>
          requestOf(claim, timestampSeconds, bodies[i] as Uint8Array, signature, previousSignature)
        )
      })
    )
  })

/** The attempt on `claim` sent at `now`, signed by the `WebhookSigner` in context. */
export const attemptRequest = (claim: ClaimedDelivery, now: number): Effect.Effect<AttemptRequest> =>
  Effect.flatMap(attemptRequests([claim], now), ([exit]) => exit as Exit.Exit<AttemptRequest>)
