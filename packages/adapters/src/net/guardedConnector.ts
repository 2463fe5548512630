/**
 * An undici `connect` function that only ever opens sockets to public addresses.
 *
 * A `lookup` hook alone is not enough: net.connect skips lookup for IP literals, so `[::1]`,
 * `2130706433` and redirects to literals slip through (see docs/decisions.md). Instead this
 * connector owns the whole dial:
 *   1. refuses IP literals in any notation;
 *   2. resolves the name itself and refuses it if any address is not public unicast;
 *   3. connects to a vetted IP (never the name again, so a second DNS answer cannot differ),
 *      keeping the name as TLS servername for SNI and certificate checks;
 *   4. re-checks the socket's remote address once connected.
 * Because the check runs on every new connection, keep-alive pools and redirects (whoever
 * follows them) cannot route around it.
 */
import { buildConnector } from "undici"
import { AddressRefusedError } from "./AddressRefusedError.js"
import { refuseConnected, refuseLiteralHost, refuseResolved, refuseUnresolved } from "./internal/addressGuard.js"
import { type HostLookup, type ResolvedAddress, systemLookup } from "./hostLookup.js"

export interface GuardedConnectorOptions {
  /**
   * Development and tests only (FRANK_ALLOW_PRIVATE_NETWORK): no guard at all, so receivers on
   * http://localhost work. Never set in production.
   */
  readonly allowPrivateNetwork: boolean
  /** Resolver for host names; the system resolver by default. */
  readonly lookup?: HostLookup
  /** Per-address TCP (+ TLS) connect timeout; undici's default of 10 s otherwise. */
  readonly connectTimeoutMs?: number
  /**
   * Extra certificate authorities to trust besides the system ones (a test server's self-signed
   * certificate). Certificate verification stays on; this only adds trust anchors.
   */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>
  /**
   * Test seam: the connector that opens the socket to the vetted address. Defaults to undici's
   * own `buildConnector`, which handles TLS, session reuse and keep-alive.
   */
  readonly dial?: buildConnector.connector
}

export const makeGuardedConnector = (options: GuardedConnectorOptions): buildConnector.connector => {
  const dial =
    options.dial ??
    buildConnector({
      ...(options.connectTimeoutMs === undefined ? {} : { timeout: options.connectTimeoutMs }),
      ...(options.ca === undefined
        ? {}
        : { ca: typeof options.ca === "string" || Buffer.isBuffer(options.ca) ? options.ca : [...options.ca] })
    })
  if (options.allowPrivateNetwork) return dial
  const lookup = options.lookup ?? systemLookup

  return (target, callback) => {
    // undici hands IPv6 literals over without brackets; addressGuard accepts both forms.
    const hostname = target.hostname
    const literal = refuseLiteralHost(hostname)
    if (literal !== undefined) return callback(new AddressRefusedError(literal), null)

    const dialInTurn = (addresses: ReadonlyArray<ResolvedAddress>, index: number): void => {
      const address = addresses[index]!.address
      // servername keeps SNI and certificate verification on the name, while the socket goes to
      // the IP we checked. undici already sets it for https; the fallback covers direct callers.
      dial({ ...target, hostname: address, servername: target.servername ?? hostname }, (error, socket) => {
        if (error !== null) {
          // The next vetted address, like Node's own connect does across a name's addresses
          // (an AAAA record on a host without IPv6 routing must not break delivery).
          if (index + 1 < addresses.length) return dialInTurn(addresses, index + 1)
          return callback(error, null)
        }
        const refusal = refuseConnected(hostname, socket.remoteAddress)
        if (refusal !== undefined) {
          socket.destroy()
          return callback(new AddressRefusedError(refusal), null)
        }
        callback(null, socket)
      })
    }

    lookup(hostname).then(
      (addresses) => {
        const refusal = refuseResolved(
          hostname,
          addresses.map((a) => a.address)
        )
        if (refusal !== undefined) return callback(new AddressRefusedError(refusal), null)
        dialInTurn(addresses, 0)
      },
      (error: unknown) => {
        const refusal = refuseUnresolved(hostname, error)
        if (refusal !== undefined) return callback(new AddressRefusedError(refusal), null)
        callback(error instanceof Error ? error : new Error(String(error)), null)
      }
    )
  }
}
