/**
 * The shared outbound HTTP dispatcher: an undici Agent whose every new connection goes through the
 * guarded connector. One agent per process keeps keep-alive pools per origin, so webhook
 * deliveries (and later media imports, which stream through the same agent) reuse sockets.
 */
import { Context, Effect, Layer } from "effect"
import { Agent, type Dispatcher } from "undici"
import { type GuardedConnectorOptions, makeGuardedConnector } from "./guardedConnector.js"
import { holdingConnector, type SocketHold } from "./SocketHold.js"

/** A guarded agent whose sockets can be held (SocketHold.ts): the webhook transport writes ahead. */
export const makeHoldingAgent = (
  options: GuardedConnectorOptions
): { readonly agent: Agent; readonly sockets: SocketHold } => {
  const { connect, sockets } = holdingConnector(makeGuardedConnector(options))
  return { agent: new Agent({ connect }), sockets }
}

/** An undici Agent whose every new connection goes through the guarded connector. */
export const makeAgent = (options: GuardedConnectorOptions): Agent => makeHoldingAgent(options).agent

export interface GuardedDispatcherShape {
  readonly dispatcher: Dispatcher
  /** Whether the guard is lifted; callers apply the matching URL policy (http allowed or not). */
  readonly allowPrivateNetwork: boolean
  /** Holds the writes of the dispatcher's sockets (absent: writes cannot be held). */
  readonly sockets?: SocketHold
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
export const layer = (options: GuardedConnectorOptions): Layer.Layer<GuardedDispatcher> =>
  Layer.scoped(
    GuardedDispatcher,
    Effect.acquireRelease(
      Effect.sync(() => {
        const { agent, sockets } = makeHoldingAgent(options)
        return { dispatcher: agent, sockets, allowPrivateNetwork: options.allowPrivateNetwork }
      }),
      ({ dispatcher }) => Effect.ignore(Effect.tryPromise(() => dispatcher.destroy()))
    )
  )
