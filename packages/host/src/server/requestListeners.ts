/**
 * Putting a step in front of a node:http server's request listeners (the platform adds its own
 * handler with `server.on("request", …)`), with `off` still removing what `on` added.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"

export type Listener = (request: IncomingMessage, response: ServerResponse) => void

/** Every request listener added to `server` from now on runs as `wrap(listener)`. */
export const wrapRequestListeners = (server: Server, wrap: (listener: Listener) => Listener): Server => {
  const wrapped = new WeakMap<Listener, Listener>()
  const wrapOnce = (listener: Listener): Listener => {
    const found = wrapped.get(listener) ?? wrap(listener)
    wrapped.set(listener, found)
    return found
  }
  // biome-ignore lint/suspicious/noExplicitAny: EventEmitter's own listener type
  type AnyListener = (...args: Array<any>) => void
  const on = server.on.bind(server) as (event: string, listener: AnyListener) => Server
  const off = server.off.bind(server) as (event: string, listener: AnyListener) => Server
  server.on = ((event: string, listener: AnyListener) =>
    on(event, event === "request" ? wrapOnce(listener as Listener) : listener)) as Server["on"]
  server.off = ((event: string, listener: AnyListener) =>
    off(event, event === "request" ? (wrapped.get(listener as Listener) ?? listener) : listener)) as Server["off"]
  return server
}
