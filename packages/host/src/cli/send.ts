/**
 * One admin API call over HTTP with the global fetch (Node 20). Network trouble (refused,
 * DNS, timeout) is told apart from an answer, because the exit codes differ (2 vs 1).
 */
import type { HttpPlan } from "./plan.js"

export interface HostAnswer {
  readonly status: number
  readonly statusText: string
  readonly ok: boolean
  readonly text: string
}

export class HostUnreachable extends Error {
  override readonly name = "HostUnreachable"
}

/** Why fetch failed, in the words of the socket layer (`connect ECONNREFUSED 127.0.0.1:1`). */
const reason = (e: unknown): string => {
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) return "no answer in time"
  if (e instanceof Error && e.cause instanceof Error) return e.cause.message
  return e instanceof Error ? e.message : String(e)
}

export const send = async (plan: HttpPlan, fetchImpl: typeof fetch = fetch): Promise<HostAnswer> => {
  let response: Response
  let text: string
  try {
    response = await fetchImpl(plan.url, {
      method: plan.method,
      headers: plan.headers,
      ...(plan.body === undefined ? {} : { body: plan.body }),
      // The admin API never redirects; following one could resend the token elsewhere.
      redirect: "manual",
      signal: AbortSignal.timeout(plan.timeoutMs)
    })
    text = await response.text()
  } catch (e) {
    throw new HostUnreachable(`cannot reach the host at ${new URL(plan.url).origin}: ${reason(e)}`)
  }
  return { status: response.status, statusText: response.statusText, ok: response.ok, text }
}

/** JSON answers pretty-printed; anything else (a proxy's HTML error page) as it came. */
export const prettyBody = (text: string): string => {
  if (text.length === 0) return ""
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}
