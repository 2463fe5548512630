/**
 * The CSRF rule for every cookie-authenticated change (docs/contract.md §6): a request whose `Origin`
 * (or, without it, `Referer`) names another origin than the one it was sent to, or `null`, is
 * refused; a request with neither header (curl, scripts) is not a browser's cross-site request and
 * passes. SameSite=Lax on the cookie is the second line.
 */

/** Methods that change nothing and are never checked. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

export interface OriginHeaders {
  readonly method: string
  readonly origin?: string | undefined
  readonly referer?: string | undefined
  /** The `Host` the request was sent to (or the first `X-Forwarded-Host` hop behind a trusted proxy). */
  readonly host?: string | undefined
}

const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).host
  } catch {
    return undefined
  }
}

/** True when the request must be refused as a cross-site change. */
export const isCrossSiteChange = (h: OriginHeaders, trustedOrigins: ReadonlyArray<string> = []): boolean => {
  if (SAFE_METHODS.has(h.method.toUpperCase())) return false
  const claimed = h.origin !== undefined && h.origin.length > 0 ? h.origin : h.referer
  if (claimed === undefined || claimed.length === 0) return false
  if (claimed === "null") return true
  if (trustedOrigins.some((o) => hostOf(o) !== undefined && hostOf(o) === hostOf(claimed))) return false
  const claimedHost = hostOf(claimed)
  return claimedHost === undefined || h.host === undefined || claimedHost !== h.host.toLowerCase()
}

export const CROSS_SITE_MESSAGE = "a cookie-authenticated change must come from the cabinet's own origin"
