/**
 * The HTTP request of one attempt: the stored payload bytes, signed with the current secret and,
 * during the rotation window, also with the previous one, in the endpoint's scheme: Frank's
 * X-Service-* headers (spec "Delivery request"), the Standard Webhooks headers, or both.
 */
import { Effect, Exit } from "effect"
import type { ClaimedDelivery } from "../Delivery.js"
import { RECEIVER_TIMEOUT_MS } from "../DeliveryState.js"
import { signingSecrets } from "../Endpoint.js"
import { signsFrank, signsStandard } from "../signing/SignatureScheme.js"
import { type SignInput, type StandardSignInput, WebhookSigner } from "../signing/WebhookSigner.js"
import type { AttemptRequest } from "./WebhookTransport.js"

/** The User-Agent of every delivery attempt. */
export const USER_AGENT = "Frank-Webhooks/1"

const encoder = new TextEncoder()

/** A claim's signatures: current secret's and previous one's (null outside the window), per scheme; null when the scheme is off. */
interface Signatures {
  readonly frank: readonly [string, string | null] | null
  readonly standard: readonly [string, string | null] | null
}

const requestOf = (claim: ClaimedDelivery, timestamp: number, body: Uint8Array, s: Signatures): AttemptRequest => {
  const headers: Record<string, string> = { "Content-Type": "application/json", "User-Agent": USER_AGENT }
  if (s.frank !== null) {
    headers["X-Service-Event"] = claim.eventType
    headers["X-Service-Event-Id"] = claim.eventId
    headers["X-Service-Timestamp"] = String(timestamp)
    headers["X-Service-Signature"] = s.frank[0]
    if (s.frank[1] !== null) headers["X-Service-Signature-Previous"] = s.frank[1]
  }
  if (s.standard !== null) {
    // The specification's names, lower case as it writes them; the message id is the event id,
    // so a replay keeps it and receivers deduplicate on it.
    headers["webhook-id"] = claim.eventId
    headers["webhook-timestamp"] = String(timestamp)
    headers["webhook-signature"] = s.standard[1] === null ? s.standard[0] : `${s.standard[0]} ${s.standard[1]}`
  }
  return { url: claim.url, headers, body, timeoutMs: RECEIVER_TIMEOUT_MS }
}

/** Where a claim's signatures are in the batch's input lists: [current, previous], -1 when absent; null when the scheme is off. */
interface Slots {
  readonly frank: readonly [number, number] | null
  readonly standard: readonly [number, number] | null
}

type Signed = ReadonlyArray<Exit.Exit<string>>

/** Appends the inputs for the current and (when set) previous secret; answers their slots. */
const addInputs = <I>(
  inputs: Array<I>,
  current: string,
  previous: string | null,
  input: (secret: string) => I
): readonly [number, number] => [
  inputs.push(input(current)) - 1,
  previous === null ? -1 : inputs.push(input(previous)) - 1
]

/** The signatures at `slots` in `signed`, or the defect one of them died with. */
const pick = (signed: Signed, slots: readonly [number, number] | null) =>
  slots === null
    ? Exit.succeed(null)
    : Exit.zip(
        signed[slots[0]] as Exit.Exit<string>,
        slots[1] === -1 ? Exit.succeed(null) : (signed[slots[1]] as Exit.Exit<string>)
      )

/**
 * The attempts on `claims` sent at `now`, signed by the `WebhookSigner` in context with one call
 * per scheme in use (a batch of `frank` endpoints makes exactly the one call it always did): each
 * claim's request, or the defect its signing died with (that attempt alone fails).
 */
export const attemptRequests = (
  claims: ReadonlyArray<ClaimedDelivery>,
  now: number
): Effect.Effect<ReadonlyArray<Exit.Exit<AttemptRequest>>> =>
  Effect.flatMap(WebhookSigner, (signer) => {
    const timestampSeconds = Math.floor(now / 1000)
    const bodies = claims.map((c) => encoder.encode(c.payload))
    const frankInputs: Array<SignInput> = []
    const standardInputs: Array<StandardSignInput> = []
    const slots = claims.map((claim, i): Slots => {
      const { current, previous } = signingSecrets(claim, now)
      const body = bodies[i] as Uint8Array
      return {
        frank: signsFrank(claim.signatureScheme)
          ? addInputs(frankInputs, current, previous, (secret) => ({ secret, timestampSeconds, body }))
          : null,
        standard: signsStandard(claim.signatureScheme)
          ? addInputs(standardInputs, current, previous, (secret) => ({
              secret,
              messageId: claim.eventId,
              timestampSeconds,
              body
            }))
          : null
      }
    })
    const none = Effect.succeed<Signed>([])
    return Effect.map(
      Effect.zip(
        frankInputs.length === 0 ? none : signer.signEach(frankInputs),
        standardInputs.length === 0 ? none : signer.signStandardEach(standardInputs)
      ),
      ([frankSigned, standardSigned]) =>
        claims.map((claim, i) => {
          const at = slots[i] as Slots
          return Exit.map(
            Exit.zip(pick(frankSigned, at.frank), pick(standardSigned, at.standard)),
            ([frank, standard]) => requestOf(claim, timestampSeconds, bodies[i] as Uint8Array, { frank, standard })
          )
        })
    )
  })

/** The attempt on `claim` sent at `now`, signed by the `WebhookSigner` in context. */
export const attemptRequest = (claim: ClaimedDelivery, now: number): Effect.Effect<AttemptRequest> =>
  Effect.flatMap(attemptRequests([claim], now), ([exit]) => exit as Exit.Exit<AttemptRequest>)
