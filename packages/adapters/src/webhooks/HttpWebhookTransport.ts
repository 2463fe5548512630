/**
 * The real `WebhookTransport`: one POST per attempt through the guarded undici agent.
 *
 * Every way an attempt ends is an outcome value, never a failure:
 *   - any status, 3xx included, is `Answered` (redirects are never followed: a receiver could
 *     otherwise bounce us to an internal address, and the signature was made for this URL only);
 *   - no complete answer (status and body) within `timeoutMs` is `TimedOut`;
 *   - DNS, refused or reset connections, TLS errors, a body cut off mid-way are `ConnectionFailed`;
 *   - the URL policy or the dial-time guard refusing the destination is `AddressRefused`.
 * Interrupting `send` aborts the request, so a timed-out or abandoned attempt frees its socket.
 */
import { checkEndpointUrl, type AttemptOutcome, type AttemptRequest, WebhookTransport, type WebhookTransportShape } from "@frank/core"
import { Effect, Layer } from "effect"
import { type Dispatcher, request } from "undici"
import { isAddressRefusedError } from "../net/AddressRefusedError.js"
import { GuardedDispatcher, guardedDispatcherLayer } from "../net/guardedAgent.js"
import type { GuardedConnectorOptions } from "../net/guardedConnector.js"

/** Response bytes read (and dropped) so a keep-alive socket can be reused; past this we hang up. */
export const DEFAULT_MAX_DRAIN_BYTES = 64 * 1024

export interface HttpWebhookTransportOptions {
  /** A guarded agent (`makeGuardedAgent`); the transport relies on it for the dial-time checks. */
  readonly dispatcher: Dispatcher
  /** Must match the agent's setting: also lets http:// and internal host names through the URL check. */
  readonly allowPrivateNetwork: boolean
  readonly maxDrainBytes?: number
}

const timedOut: AttemptOutcome = { _tag: "TimedOut" }

/** A readable one-line reason; Node's own messages already carry the code (`connect ECONNREFUSED …`). */
export const describeError = (error: unknown): string => {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0])
  if (!(error instanceof Error)) return String(error)
  const code = (error as { readonly code?: unknown }).code
  const message = error.message || error.name
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message
}

const classify = (error: unknown): AttemptOutcome =>
  isAddressRefusedError(error) ? { _tag: "AddressRefused", message: error.message } : { _tag: "ConnectionFailed", message: describeError(error) }

const post = async (dispatcher: Dispatcher, url: URL, attempt: AttemptRequest, signal: AbortSignal, maxDrainBytes: number): Promise<AttemptOutcome> => {
  // No `maxRedirections` and no redirect interceptor: undici 7's `request` then hands a 3xx back
  // as is (passing maxRedirections > 0 would even throw).
  const response = await request(url, { dispatcher, method: "POST", headers: attempt.headers, body: attempt.body, signal })
  let read = 0
  // Reading to the end returns the socket to the pool. A receiver sending more than the cap gets
  // hung up on: leaving the loop destroys the body, and with it that one connection. An error
  // here (reset mid-body) rejects, so it becomes ConnectionFailed: the answer was incomplete.
  for await (const chunk of response.body) {
    read += (chunk as Buffer).length
    if (read > maxDrainBytes) break
  }
  return { _tag: "Answered", status: response.statusCode }
}

/** Send-time URL checks remembered per URL string; the policy is a pure function of it. */
const MAX_CHECKED_URLS = 1024

export const makeHttpWebhookTransport = (options: HttpWebhookTransportOptions): WebhookTransportShape => {
  const maxDrainBytes = options.maxDrainBytes ?? DEFAULT_MAX_DRAIN_BYTES
  const checkedUrls = new Map<string, ReturnType<typeof checkEndpointUrl>>()
  /**
   * The registration-time URL policy again at send time: the stored URL may predate a policy
   * change (an http://localhost endpoint from a dev setup), and it refuses by name what DNS would
   * otherwise be asked about. The dial-time guard in the agent remains the real check. The verdict
   * depends on the string and this transport's setting only, so it is computed once per URL
   * (bounded: the map is emptied when full), not parsed again on every attempt.
   */
  const check = (url: string) => {
    const known = checkedUrls.get(url)
    if (known !== undefined) return known
    if (checkedUrls.size >= MAX_CHECKED_URLS) checkedUrls.clear()
    const checked = checkEndpointUrl(url, { allowPrivateNetwork: options.allowPrivateNetwork })
    checkedUrls.set(url, checked)
    return checked
  }
  return {
    send: (attempt) => {
      const checked = check(attempt.url)
      if (checked._tag === "Left") return Effect.succeed<AttemptOutcome>({ _tag: "AddressRefused", message: checked.left.message })
      const url = checked.right
      return Effect.tryPromise({
        // Effect aborts `signal` when the fiber is interrupted: by the timeout below or by the caller.
        try: (signal) => post(options.dispatcher, url, attempt, signal, maxDrainBytes),
        catch: classify
      }).pipe(
        Effect.merge,
        // Timed on the Effect Clock, for the whole attempt: connect, headers and body.
        Effect.timeoutTo({ duration: attempt.timeoutMs, onSuccess: (outcome) => outcome, onTimeout: () => timedOut })
      )
    }
  }
}

/** The transport over the process's shared guarded agent. */
export const HttpWebhookTransportLive: Layer.Layer<WebhookTransport, never, GuardedDispatcher> = Layer.effect(
  WebhookTransport,
  Effect.map(GuardedDispatcher, (guarded) => makeHttpWebhookTransport(guarded))
)

/** The transport with an agent of its own, for hosts that have no other outbound HTTP. */
export const httpWebhookTransportLayer = (options: GuardedConnectorOptions): Layer.Layer<WebhookTransport> =>
  HttpWebhookTransportLive.pipe(Layer.provide(guardedDispatcherLayer(options)))
