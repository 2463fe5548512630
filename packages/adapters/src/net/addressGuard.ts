/**
 * The three dial-time decisions of the address guard, as pure functions (the connector only
 * sequences them). Each returns the reason for refusing, or undefined to let the dial proceed.
 *
 * A reason never names the internal address it found: it ends up where the caller of the URL
 * reads it (a webhook delivery's `lastError`, a media task's error), and a partner who points a
 * name of their own at our resolver (a CNAME to `db.internal`, say) would otherwise map our
 * private network one refusal at a time.
 */
import { isIpLiteral, isPublicAddress } from "@frank/core"

/**
 * Before resolving: IP literals in any notation are refused outright. Node's net.connect skips
 * its lookup for literals, which is exactly how a lookup-hook-only guard leaks `[::1]`,
 * `2130706433` or a redirect to `127.0.0.2`; a webhook or media URL has no business naming an IP.
 */
export const refuseLiteralHost = (hostname: string): string | undefined =>
  isIpLiteral(hostname) ? `${hostname} is an IP address; only public host names may be called` : undefined

/**
 * After resolving: every address must be public unicast. One private address among public ones
 * refuses the whole name, so an attacker cannot mix records and wait for a fallback to land inside.
 */
export const refuseResolved = (hostname: string, addresses: ReadonlyArray<string>): string | undefined => {
  const bad = addresses.find((address) => !isPublicAddress(address))
  return bad === undefined ? undefined : `${hostname} resolves to a private, loopback or reserved address`
}

/**
 * After connecting: the peer the socket actually reached. We dial the vetted IP, so this only
 * fires if something between us and it (a NAT64 prefix, a transparent proxy, a rebinding trick we
 * did not foresee) lands the socket on an internal address; it is cheap defence in depth.
 */
export const refuseConnected = (hostname: string, remoteAddress: string | undefined): string | undefined => {
  if (remoteAddress === undefined) return `connection to ${hostname} has no remote address`
  return isPublicAddress(remoteAddress) ? undefined : `connection to ${hostname} reached a private, loopback or reserved address`
}
