/**
 * The real `WebhookTransport`: one POST per attempt through the guarded undici agent.
 *
 * Every way an attempt ends is an outcome value, never a failure:
 *   - any status, 3xx included, is `Answered` (redirects are never followed: a receiver could
 *     otherwise bounce us to an internal address, and the signature was made for this URL only);
 *   - no complete answer (status and body) within `timeoutMs` is `TimedOut` (checked on Effect's
 *     Clock every TIMEOUT_CHECK_INTERVAL_MS, so it fires up to that much later);
 *   - DNS, refused or reset connections, TLS errors, a body cut off mid-way are `ConnectionFailed`;
 *   - the URL policy or the dial-time guard refusing the destination is `AddressRefused`.
 * Interrupting `send` aborts the request, so a timed-out or abandoned attempt frees its socket.
 * `sendBatch` does the same for many attempts on one fiber (the worker's fast path), written
 * ahead on held sockets and released right after the worker's sent mark (internal/batchRun.ts).
 */
import { Net, Webhooks } from "@frank/core"
import { Effect, Either, Layer, type Scope } from "effect"
import type { Dispatcher } from "undici"
import { isAddressRefusedError } from "../net/AddressRefusedError.js"
import * as GuardedDispatcher from "../net/GuardedDispatcher.js"
import type { GuardedConnectorOptions } from "../net/guardedConnector.js"
import type { SocketHold } from "../net/SocketHold.js"
import { runBatch, type StartAttempt } from "./internal/batchRun.js"
import { makeDeadlines } from "./internal/Deadlines.js"
import { type PostTarget, postAttempt } from "./internal/postAttempt.js"

/** Response bytes read (and dropped) so a keep-alive socket can be reused; past this we hang up. */
export const DEFAULT_MAX_DRAIN_BYTES = 64 * 1024

/** How often attempt deadlines are checked: a timeout ends at most this long after it is due. */
export const TIMEOUT_CHECK_INTERVAL_MS = 100

export interface HttpWebhookTransportOptions {
  /** A guarded agent (`GuardedDispatcher.makeAgent`); the transport relies on it for the dial-time checks. */
  readonly dispatcher: Dispatcher
  /** Must match the agent's setting: also lets http:// and internal host names through the URL check. */
  readonly allowPrivateNetwork: boolean
  readonly maxDrainBytes?: number
  /**
   * The agent's socket hold (`GuardedDispatcher.makeHoldingAgent`): with it a batch is written
   * ahead and released right after `sendBatch`'s `release` (internal/batchRun.ts); without it
   * the requests start after `release`.
   */
  readonly sockets?: SocketHold
}

const timedOut: Webhooks.AttemptOutcome = { _tag: "TimedOut" }

/** A readable one-line reason; Node's own messages already carry the code (`connect ECONNREFUSED …`). */
export const describeError = (error: unknown): string => {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0])
  if (!(error instanceof Error)) return String(error)
  const code = (error as { readonly code?: unknown }).code
  const message = error.message || error.name
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message
}

const classify = (error: unknown): Webhooks.AttemptOutcome =>
  isAddressRefusedError(error)
    ? { _tag: "AddressRefused", message: error.message }
    : { _tag: "ConnectionFailed", message: describeError(error) }

/** Send-time URL checks remembered per URL string; the policy is a pure function of it. */
const MAX_CHECKED_URLS = 1024

/**
 * The transport; its deadline sweeper lives as long as the scope. Each attempt is one undici
 * dispatch reporting through a callback (internal/postAttempt.ts), timed on Effect's Clock by the
 * sweeper (internal/Deadlines.ts): no fiber, stream or AbortSignal of its own.
 */
export const make = (
  options: HttpWebhookTransportOptions
): Effect.Effect<Webhooks.WebhookTransportShape, never, Scope.Scope> =>
  Effect.map(makeDeadlines(TIMEOUT_CHECK_INTERVAL_MS), (deadlines) => {
    const maxDrainBytes = options.maxDrainBytes ?? DEFAULT_MAX_DRAIN_BYTES
    const checkedUrls = new Map<string, Either.Either<PostTarget, string>>()
    /**
     * The registration-time URL policy again at send time: the stored URL may predate a policy
     * change (an http://localhost endpoint from a dev setup), and it refuses by name what DNS would
     * otherwise be asked about. The dial-time guard in the agent remains the real check. The
     * verdict depends on the string and this transport's setting only, so it is computed once per
     * URL (bounded: the map is emptied when full), not parsed again on every attempt.
     */
    const check = (url: string) => {
      const known = checkedUrls.get(url)
      if (known !== undefined) return known
      if (checkedUrls.size >= MAX_CHECKED_URLS) checkedUrls.clear()
      const checked = Either.mapBoth(Net.checkEndpointUrl(url, { allowPrivateNetwork: options.allowPrivateNetwork }), {
        onLeft: (refused) => refused.message,
        onRight: (parsed): PostTarget => ({ origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` })
      })
      checkedUrls.set(url, checked)
      return checked
    }
    /**
     * Starts one attempt; `report` gets its outcome once, unless the answer (abandon) is called
     * first. The whole attempt is timed — connect, headers and body — from here.
     */
    const start: StartAttempt = (attempt, report, writing) => {
      const checked = check(attempt.url)
      if (Either.isLeft(checked)) {
        report({ _tag: "AddressRefused", message: checked.left })
        return () => {}
      }
      const cancelDeadline = deadlines.add(attempt.timeoutMs, () => {
        posting.abandon()
        report(timedOut)
      })
      const posting = postAttempt(
        options.dispatcher,
        checked.right,
        attempt.headers,
        attempt.body,
        maxDrainBytes,
        classify,
        (outcome) => {
          cancelDeadline()
          report(outcome)
        },
        writing
      )
      // Interrupted (shutdown, a simulated crash): abort the request so its socket is freed.
      return () => {
        cancelDeadline()
        posting.abandon()
      }
    }
    return {
      send: (attempt) =>
        Effect.async<Webhooks.AttemptOutcome>((resume) => {
          const abandon = start(attempt, (outcome) => resume(Effect.succeed(outcome)))
          return Effect.sync(abandon)
        }),
      // The batch runs on one fiber: each attempt reports from its own callbacks, no fiber each.
      sendBatch: (attempts, onOutcome, release) => runBatch(start, options.sockets, attempts, onOutcome, release)
    }
  })

/** The transport over the process's shared guarded agent. */
export const layer: Layer.Layer<Webhooks.WebhookTransport, never, GuardedDispatcher.GuardedDispatcher> = Layer.scoped(
  Webhooks.WebhookTransport,
  Effect.flatMap(GuardedDispatcher.GuardedDispatcher, (guarded) => make(guarded))
)

/** The transport with an agent of its own, for hosts that have no other outbound HTTP. */
export const layerWith = (options: GuardedConnectorOptions): Layer.Layer<Webhooks.WebhookTransport> =>
  layer.pipe(Layer.provide(GuardedDispatcher.layer(options)))
