/**
 * How an embedder mounts the cabinet: under which path, and how its session cookie is set.
 * The cabinet itself never mints sessions from credentials; the host (or the embedder's own
 * login) hands out sign-in links or sets the `service_token` cookie.
 */
export interface CabinetOptions {
  /** Where the cabinet is mounted, e.g. "/cabinet" (no trailing slash). */
  readonly basePath: string
  /** Mark the session cookie Secure (the public base URL is https). */
  readonly secureCookie: boolean
  /** Client IP and host from X-Forwarded-For / X-Forwarded-Host (behind a trusted proxy). */
  readonly trustProxy: boolean
  /** Origins besides the request's own host accepted for changes. */
  readonly trustedOrigins?: ReadonlyArray<string> | undefined
}

export const SESSION_COOKIE = "service_token"

/** The one-time link the admin API returns: `{publicBaseUrl}{basePath}/sign-in?token=…`. */
export const signInUrl = (publicBaseUrl: string, token: string, basePath = "/cabinet"): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}${basePath}/sign-in?token=${encodeURIComponent(token)}`
