/**
 * The shared outbound HTTP dispatcher: an undici Agent whose every new connection goes through the
 * guarded connector. One agent per process keeps keep-alive pools per origin, so webhook
 * deliveries (and later media imports, which stream through the same agent) reuse sockets.
 */
import { Context, Effect, Layer } from "effect"
import { Agent, type Dispatcher } from "undici"
import { type GuardedConnectorOptions, makeGuardedConnector } from "./guardedConnector.js"

export const makeGuardedAgent = (options: GuardedConnectorOptions): Agent =>
  new Agent({ connect: makeGuardedConnector(options) })

export interface GuardedDispatcherShape {
  readonly dispatcher: Dispatcher
  /** Whether the guard is lifted; callers apply the matching URL policy (http allowed or not). */
  readonly allowPrivateNetwork: boolean
}

export class GuardedDispatcher extends Context.Tag("@frank/adapters/GuardedDispatcher")<
  GuardedDispatcher,
  GuardedDispatcherShape
>() {}

/**
 * A guarded agent for the layer's lifetime. Released with `destroy`, not `close`: by then the
 * fibers using it are interrupted (their requests aborted), and waiting on a stuck receiver must
 * not hold up shutdown.
 */
export const guardedDispatcherLayer = (options: GuardedConnectorOptions): Layer.Layer<GuardedDispatcher> =>
  Layer.scoped(
    GuardedDispatcher,
    Effect.acquireRelease(
      Effect.sync(() => ({ dispatcher: makeGuardedAgent(options), allowPrivateNetwork: options.allowPrivateNetwork })),
      ({ dispatcher }) => Effect.ignore(Effect.tryPromise(() => dispatcher.destroy()))
    )
  )
