/**
 * One webhook POST on undici's dispatch API, reported through a callback exactly once.
 *
 * Why not `undici.request`: it wraps every response in a Readable stream and every call in an
 * AbortSignal listener, and the attempt needs neither: the body is counted and dropped, its first
 * KiB kept as the attempt's snippet (core's responseSnippet.ts). On
 * the dispatch API an attempt is one handler object (bench/webhooks measures the difference).
 *
 * No redirect handling is installed, so a 3xx comes back as is (redirects are never followed).
 */
import { Webhooks } from "@frank/core"
import type { Dispatcher } from "undici"

/** Where a checked URL points, split the way `dispatch` takes it. */
export interface PostTarget {
  readonly origin: string
  /** Path and query, as sent in the request line. */
  readonly path: string
}

export interface PostingAttempt {
  /** Abandons the attempt (timeout, interruption): the request is aborted, its socket closed, and nothing is reported. */
  readonly abandon: () => void
}

/** Errors raised to stop an attempt: they end the request, never reach `done`. */
const abandoned = new Error("webhook attempt abandoned (timeout or shutdown)")
const overCap = new Error("webhook receiver answered more than the drain cap; hung up")

/**
 * One attempt in flight: undici's handler for it, and what `abandon` needs. A class, so that an
 * attempt allocates one object and no closures (bench/webhooks: per-attempt closures, each named
 * by the TypeScript loader, were a measurable share of the worker's CPU).
 */
class Posting implements Dispatcher.DispatchHandler, PostingAttempt {
  private settled = false
  private controller: Dispatcher.DispatchController | null = null
  private status = 0
  private readBytes = 0
  /** The body's first bytes, up to one past the snippet's size (so a cut character can be seen). */
  private head: Buffer | null = null

  constructor(
    private readonly maxDrainBytes: number,
    private readonly classify: (error: unknown) => Webhooks.AttemptOutcome,
    private readonly done: (outcome: Webhooks.AttemptOutcome) => void,
    private readonly writing: (() => void) | undefined
  ) {}

  private settle(outcome: Webhooks.AttemptOutcome): void {
    if (this.settled) return
    this.settled = true
    this.done(outcome)
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    // Abandoned while queued for a connection: stop before anything is written.
    if (this.settled) controller.abort(abandoned)
    // undici writes the request right after this call, in the same turn.
    else this.writing?.()
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // Reading to the end returns the socket to the pool; past the cap the answer counts as
    // given and the connection is dropped rather than drained.
    const kept = this.head?.length ?? 0
    if (kept <= Webhooks.RESPONSE_SNIPPET_BYTES) {
      const take = chunk.subarray(0, Webhooks.RESPONSE_SNIPPET_BYTES + 1 - kept)
      this.head = this.head === null ? Buffer.from(take) : Buffer.concat([this.head, take])
    }
    this.readBytes += chunk.length
    if (this.readBytes > this.maxDrainBytes) {
      this.settle(this.answered())
      controller.abort(overCap)
    }
  }

  private answered(): Webhooks.AttemptOutcome {
    return { _tag: "Answered", status: this.status, body: Webhooks.responseSnippet(this.head ?? new Uint8Array(0)) }
  }

  onResponseEnd(): void {
    this.settle(this.answered())
  }

  // A reset mid-body lands here too: the answer was incomplete, so it is a connection failure.
  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.settle(this.classify(error))
  }

  abandon(): void {
    if (this.settled) return
    this.settled = true
    this.controller?.abort(abandoned)
  }
}

/**
 * Starts the POST. `done` is called once with the outcome — unless `abandon` came first — and
 * `classify` turns a request error into one. `writing`, if given, is called when undici is
 * about to write the request onto its connection (connected, in this same turn).
 */
export const postAttempt = (
  dispatcher: Dispatcher,
  target: PostTarget,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
  maxDrainBytes: number,
  classify: (error: unknown) => Webhooks.AttemptOutcome,
  done: (outcome: Webhooks.AttemptOutcome) => void,
  writing?: () => void
): PostingAttempt => {
  const posting = new Posting(maxDrainBytes, classify, done, writing)
  dispatcher.dispatch({ origin: target.origin, path: target.path, method: "POST", headers, body }, posting)
  return posting
}
