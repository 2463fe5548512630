/**
 * One webhook POST on undici's dispatch API, reported through a callback exactly once.
 *
 * Why not `undici.request`: it wraps every response in a Readable stream and every call in an
 * AbortSignal listener, and the attempt needs neither: the body is only counted and dropped. On
 * the dispatch API an attempt is one handler object (bench/webhooks measures the difference).
 *
 * No redirect handling is installed, so a 3xx comes back as is (redirects are never followed).
 */
import type { AttemptOutcome } from "@frank/core"
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
 * Starts the POST. `done` is called once with the outcome — unless `abandon` came first — and
 * `classify` turns a request error into one.
 */
export const postAttempt = (
  dispatcher: Dispatcher,
  target: PostTarget,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
  maxDrainBytes: number,
  classify: (error: unknown) => AttemptOutcome,
  done: (outcome: AttemptOutcome) => void
): PostingAttempt => {
  let settled = false
  let controller: Dispatcher.DispatchController | null = null
  let status = 0
  let readBytes = 0
  const settle = (outcome: AttemptOutcome) => {
    if (settled) return
    settled = true
    done(outcome)
  }
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart: (c) => {
      controller = c
      // Abandoned while queued for a connection: stop before anything is written.
      if (settled) c.abort(abandoned)
    },
    onResponseStart: (_c, statusCode) => {
      status = statusCode
    },
    onResponseData: (c, chunk) => {
      // Reading to the end returns the socket to the pool; past the cap the answer counts as
      // given and the connection is dropped rather than drained.
      readBytes += chunk.length
      if (readBytes > maxDrainBytes) {
        settle({ _tag: "Answered", status })
        c.abort(overCap)
      }
    },
    onResponseEnd: () => settle({ _tag: "Answered", status }),
    // A reset mid-body lands here too: the answer was incomplete, so it is a connection failure.
    onResponseError: (_c, error) => settle(classify(error))
  }
  dispatcher.dispatch({ origin: target.origin, path: target.path, method: "POST", headers, body }, handler)
  return {
    abandon: () => {
      if (settled) return
      settled = true
      controller?.abort(abandoned)
    }
  }
}
