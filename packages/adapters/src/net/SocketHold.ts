/**
 * Holds the writes of every socket a connector hands out, so that requests can be written ahead
 * and released together. While a hold is on, each open socket, and each one opened meanwhile, is
 * corked: what undici writes stays in the socket's buffer. Releasing the hold uncorks them in one
 * loop, so the writes reach the kernel within one turn of the event loop; destroying a held
 * socket (an aborted request) drops its buffer unsent.
 *
 * Why: the delivery worker marks a batch sent right before its requests go out (issue 31). A
 * crash between that mark and the first byte on the wire leaves an `uncertain` delivery the
 * receiver never saw. With the hold, connecting and writing happen before the mark, and only the
 * release follows it (docs/reliability.md, "Uncertain means sent").
 *
 * Holds nest: each one corks what it found and uncorks exactly that, as Node counts corks.
 */
import type { Socket } from "node:net"
import type { buildConnector } from "undici"

/** Holds and releases the writes of a connector's sockets. */
export interface SocketHold {
  /** Corks every socket open now or opened until the returned function is called, which uncorks them. */
  readonly hold: () => () => void
}

/** Wraps a connector so that its sockets can be held (see the module's comment). */
export const holdingConnector = (
  connect: buildConnector.connector
): { readonly connect: buildConnector.connector; readonly sockets: SocketHold } => {
  const open = new Set<Socket>()
  const holds = new Set<Array<Socket>>()
  const wrapped: buildConnector.connector = (options, callback) =>
    connect(options, (...args) => {
      // On an error undici passes no socket at all (undefined, not the typed null).
      const socket = args[0] === null ? args[1] : undefined
      if (socket !== undefined) {
        open.add(socket)
        socket.once("close", () => open.delete(socket))
        for (const held of holds) {
          socket.cork()
          held.push(socket)
        }
      }
      callback(...args)
    })
  const hold = () => {
    const held = [...open]
    for (const socket of held) socket.cork()
    holds.add(held)
    let released = false
    return () => {
      if (released) return
      released = true
      holds.delete(held)
      for (const socket of held) socket.uncork()
    }
  }
  return { connect: wrapped, sockets: { hold } }
}
