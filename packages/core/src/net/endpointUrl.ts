/**
 * Registration-time checks of a URL Frank will call (webhook endpoints): public HTTPS, no IP
 * literals, no internal host names, no credentials in the URL. This is the first line only; the
 * address actually connected to is checked again at dial time (DNS can change between the two).
 * `allowPrivateNetwork` (FRANK_ALLOW_PRIVATE_NETWORK, development only) lifts the host rules and
 * allows http so local receivers work.
 */
import { Either } from "effect"
import { isIpLiteral } from "./addressPolicy.js"

export const MAX_URL_LENGTH = 2048

export type UrlRejectionCode =
  | "WEBHOOK_URL_INVALID"
  | "WEBHOOK_URL_NOT_HTTPS"
  | "WEBHOOK_URL_CREDENTIALS"
  | "WEBHOOK_URL_IP_LITERAL"
  | "WEBHOOK_URL_INTERNAL_HOST"

export interface UrlRejection {
  readonly code: UrlRejectionCode
  readonly message: string
}

/** Suffixes that only resolve inside private networks (RFC 6761/6762/8375 and common practice). */
const INTERNAL_SUFFIXES = [
  ".localhost",
  ".local",
  ".internal",
  ".intranet",
  ".lan",
  ".home.arpa",
  ".corp",
  ".localdomain"
]

export const isInternalHostName = (host: string): boolean => {
  // Every trailing dot: "localhost.." is still localhost to a resolver.
  const h = host.toLowerCase().replace(/\.+$/, "")
  // A single label ("db", "metadata") resolves through the local search domain, never publicly.
  return h === "localhost" || !h.includes(".") || INTERNAL_SUFFIXES.some((s) => h.endsWith(s))
}

const reject = (code: UrlRejectionCode, message: string) => Either.left<UrlRejection>({ code, message })

/** Checks a webhook endpoint URL: https, a public host, no credentials; the reason on refusal. */
export const checkEndpointUrl = (
  raw: string,
  options: { readonly allowPrivateNetwork: boolean }
): Either.Either<URL, UrlRejection> => {
  if (raw.length > MAX_URL_LENGTH)
    return reject("WEBHOOK_URL_INVALID", `url must be at most ${MAX_URL_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return reject("WEBHOOK_URL_INVALID", "url must be an absolute URL")
  }
  const httpsOnly = !options.allowPrivateNetwork
  if (url.protocol !== "https:" && !(url.protocol === "http:" && !httpsOnly))
    return reject("WEBHOOK_URL_NOT_HTTPS", httpsOnly ? "url must use https" : "url must use http or https")
  if (url.username.length > 0 || url.password.length > 0)
    return reject("WEBHOOK_URL_CREDENTIALS", "url must not carry credentials")
  if (options.allowPrivateNetwork) return Either.right(url)
  // The URL parser has already normalized IPv4 notations (2130706433, 0x7f.1) to dotted form.
  if (isIpLiteral(url.hostname)) return reject("WEBHOOK_URL_IP_LITERAL", "url must name a host, not an IP address")
  if (isInternalHostName(url.hostname))
    return reject("WEBHOOK_URL_INTERNAL_HOST", `url host ${url.hostname} is internal; use a public host name`)
  return Either.right(url)
}
