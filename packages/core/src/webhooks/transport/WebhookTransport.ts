/**
 * The port through which the delivery worker sends attempts. Adapters implement it with real
 * HTTP behind the dial-time address guard; the simulation kit implements it with a scripted
 * receiver. A transport never fails: every way an attempt can end is an outcome the worker records.
 *
 * The worker sends through `sendBatch`: a transport whose requests are driven by callbacks anyway
 * (HTTP) runs a whole claimed batch on one fiber; one without such a path builds it from `send`
 * with `sendEach` (a fiber per attempt).
 */
import { Context, type Effect } from "effect"

/** One delivery attempt as sent: URL, signed headers and body. */
export interface AttemptRequest {
  readonly url: string
  /** Header names in canonical case; values as sent. */
  readonly headers: Readonly<Record<string, string>>
  /** The stored payload bytes; identical on every attempt of an event. */
  readonly body: Uint8Array
  readonly timeoutMs: number
}

/** What became of one delivery attempt: an answer, a timeout or a connection failure. */
export type AttemptOutcome =
  /** The receiver answered; any status, including 3xx (redirects are never followed). */
  | {
      readonly _tag: "Answered"
      readonly status: number
      /** The first KiB of the response body as text (responseSnippet.ts); omitted when not read. */
      readonly body?: string | undefined
    }
  /** No complete answer within the timeout. */
  | { readonly _tag: "TimedOut" }
  /** DNS failure, refused or reset connection, TLS failure, malformed response. */
  | { readonly _tag: "ConnectionFailed"; readonly message: string }
  /** The address guard refused the destination (private, loopback, IP literal, …). */
  | { readonly _tag: "AddressRefused"; readonly message: string }

/** The operations of the webhook transport port. */
export interface WebhookTransportShape {
  /**
   * Sends one attempt. Interruption means the process died mid-request: the worker records
   * nothing, so the lease runs out and the delivery becomes `uncertain`.
   */
  readonly send: (request: AttemptRequest) => Effect.Effect<AttemptOutcome>
  /**
   * Sends the attempts together; each one's outcome is reported through `onOutcome(index,
   * outcome)` as soon as it ends (at most once per index; the callback is synchronous and must
   * not throw), and the effect completes once every attempt has reported. Interruption abandons
   * the attempts still in flight, which then report nothing — as `send`'s interruption does.
   *
   * `release` runs once, before any byte of any attempt leaves; the worker marks the batch sent
   * there. When it answers false nothing is sent and nothing reported. A transport that can do
   * the work of sending ahead (open connections, write requests into held buffers) does it
   * before `release` and only lets the bytes go after it, so that a crash lands between the mark
   * and the wire as rarely as possible (docs/reliability.md, "Uncertain means sent").
   */
  readonly sendBatch: (
    requests: ReadonlyArray<AttemptRequest>,
    onOutcome: (index: number, outcome: AttemptOutcome) => void,
    release: Effect.Effect<boolean>
  ) => Effect.Effect<void>
}

/** Port: sends delivery attempts (guarded HTTP in adapters, scripted in tests). */
export class WebhookTransport extends Context.Tag("@frank/core/WebhookTransport")<
  WebhookTransport,
  WebhookTransportShape
>() {}

/** 2xx is success; everything else, 3xx included, is a failed attempt. */
export const isSuccess = (outcome: AttemptOutcome): boolean =>
  outcome._tag === "Answered" && outcome.status >= 200 && outcome.status < 300
