/**
 * The three dial-time decisions of the address guard, as pure functions (the connector only
 * sequences them). Each returns the reason for refusing, or undefined to let the dial proceed.
 *
 * A reason never names the internal address it found: it ends up where the caller of the URL
 * reads it (a webhook delivery's `lastError`, a media task's error), and a partner who points a
 * name of their own at our resolver (a CNAME to `db.internal`, say) would otherwise map our
 * private network one refusal at a time.
 */
import { Net } from "@frank/core"

/**
 * Before resolving: IP literals in any notation are refused outright. Node's net.connect skips
 * its lookup for literals, which is exactly how a lookup-hook-only guard leaks `[::1]`,
 * `2130706433` or a redirect to `127.0.0.2`; a webhook or media URL has no business naming an IP.
 */
export const refuseLiteralHost = (hostname: string): string | undefined =>
  Net.isIpLiteral(hostname) ? `${hostname} is an IP address; only public host names may be called` : undefined

/**
 * The one reason given for a name that resolves to nothing public: whether it resolved to a private
 * address or did not exist at all. Two different messages would answer, for any name a partner
 * registers, "does our resolver know this internal name?" (a `db.corp` that exists is refused, one
 * that does not fails with ENOTFOUND), which maps the internal zone without any connection made.
 */
const notPublic = (hostname: string): string => `${hostname} does not resolve to a public address`

/**
 * After resolving: every address must be public unicast, and there must be one. One private address among public ones
 * refuses the whole name, so an attacker cannot mix records and wait for a fallback to land inside.
 */
export const refuseResolved = (hostname: string, addresses: ReadonlyArray<string>): string | undefined => {
  // An empty answer has nothing to dial; it reads like a name that does not exist.
  if (addresses.length === 0) return notPublic(hostname)
  const bad = addresses.find((address) => !Net.isPublicAddress(address))
  return bad === undefined ? undefined : notPublic(hostname)
}

/** Resolver error codes that mean "this name has no addresses", as opposed to a failed lookup. */
const NO_SUCH_NAME_CODES: ReadonlySet<string> = new Set(["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA"])

/**
 * When the lookup fails: a name that does not exist (or has no address records) is refused with the
 * same reason as a private one (see `notPublic`). Other failures (EAI_AGAIN, a resolver timeout)
 * stay ordinary connection failures, worth retrying, and undefined is returned for them.
 */
export const refuseUnresolved = (hostname: string, error: unknown): string | undefined => {
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined
  return typeof code === "string" && NO_SUCH_NAME_CODES.has(code) ? notPublic(hostname) : undefined
}

/**
 * After connecting: the peer the socket actually reached. We dial the vetted IP, so this only
 * fires if something between us and it (a NAT64 prefix, a transparent proxy, a rebinding trick we
 * did not foresee) lands the socket on an internal address; it is cheap defence in depth.
 */
export const refuseConnected = (hostname: string, remoteAddress: string | undefined): string | undefined => {
  if (remoteAddress === undefined) return `connection to ${hostname} has no remote address`
  return Net.isPublicAddress(remoteAddress)
    ? undefined
    : `connection to ${hostname} reached a private, loopback or reserved address`
}
