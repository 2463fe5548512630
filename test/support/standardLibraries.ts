/**
 * Verification by the Standard Webhooks libraries themselves (`standardwebhooks`, the
 * specification's reference; `svix`, which wraps it), not by Frank's code. Both read the wall
 * clock for the 5-minute window, so the check runs with Date pinned to the instant the receiver
 * got the request (a TestClock time, or a host's sandbox clock).
 */
import { vi } from "@effect/vitest"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { Webhook as SvixWebhook } from "svix"

export type Library = "standardwebhooks" | "svix"
export const libraries: ReadonlyArray<Library> = ["standardwebhooks", "svix"]

export interface SignedRequest {
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string | Uint8Array
}

const headersOf = (h: SignedRequest["headers"]): Record<string, string> =>
  Object.fromEntries(
    Object.entries(h).flatMap(([k, v]) => (v === undefined ? [] : [[k, typeof v === "string" ? v : v.join(", ")]]))
  )

/** The library's answer for `request` at `atMs`: "ok", or the message it refused with. */
export const libraryVerdict = (library: Library, secret: string, request: SignedRequest, atMs: number): string => {
  const payload = typeof request.body === "string" ? request.body : Buffer.from(request.body).toString("utf8")
  vi.setSystemTime(atMs)
  try {
    if (library === "standardwebhooks") new StandardWebhook(secret).verify(payload, headersOf(request.headers))
    else new SvixWebhook(secret).verify(payload, headersOf(request.headers))
    return "ok"
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  } finally {
    vi.useRealTimers()
  }
}

/** Whether both libraries accept `request` with `secret` at `atMs`. */
export const librariesVerify = (secret: string, request: SignedRequest, atMs: number): boolean =>
  libraries.every((l) => libraryVerdict(l, secret, request, atMs) === "ok")
