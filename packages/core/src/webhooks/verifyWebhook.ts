/**
 * The receiver side of the spec's signature rules, for integrators: take the raw bytes, compute
 * HMAC-SHA256 over `<timestamp>.<raw body>` with each accepted secret, compare in constant time
 * with either signature header, and reject timestamps more than 300 s from now.
 */
import { constantTimeEqual, sign } from "./signature.js"

export const SIGNATURE_TOLERANCE_SECONDS = 300

export type VerifyFailure =
  | "missing_headers"
  | "malformed_timestamp"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch"

export type VerifyResult =
  | { readonly ok: true; readonly eventId: string; readonly eventType: string; readonly timestampSeconds: number }
  | { readonly ok: false; readonly reason: VerifyFailure }

export interface VerifyWebhookInput {
  /** The endpoint secret, or several during a rotation on the receiver's side. */
  readonly secret: string | ReadonlyArray<string>
  /** Request headers; names are matched case-insensitively. */
  readonly headers: Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly rawBody: Uint8Array | string
  /** Current time in epoch milliseconds (pass your clock; nothing here reads the wall clock). */
  readonly now: number
  readonly toleranceSeconds?: number
}

const header = (headers: VerifyWebhookInput["headers"], name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  for (const [k, v] of Object.entries(record)) {
    if (k.toLowerCase() !== name) continue
    return typeof v === "string" ? v : v?.[0]
  }
  return undefined
}

export const verifyWebhook = async (input: VerifyWebhookInput): Promise<VerifyResult> => {
  const timestamp = header(input.headers, "x-service-timestamp")
  const eventId = header(input.headers, "x-service-event-id")
  const eventType = header(input.headers, "x-service-event")
  const given = [
    header(input.headers, "x-service-signature"),
    header(input.headers, "x-service-signature-previous")
  ].filter((s): s is string => s !== undefined && s.length > 0)
  // An empty header counts as missing: an empty event id would make every such delivery one event.
  if (!timestamp || !eventId || !eventType || given.length === 0) return { ok: false, reason: "missing_headers" }
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "malformed_timestamp" }
  const timestampSeconds = Number(timestamp)
  const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS
  if (Math.abs(Math.floor(input.now / 1000) - timestampSeconds) > tolerance)
    return { ok: false, reason: "timestamp_out_of_tolerance" }
  const secrets = typeof input.secret === "string" ? [input.secret] : input.secret
  let matched = false
  for (const secret of secrets) {
    // An empty key signs nothing worth trusting (and Web Crypto refuses it): it matches no signature.
    if (secret.length === 0) continue
    const expected = await sign(secret, timestampSeconds, input.rawBody)
    // Every comparison runs, so timing does not reveal which header or secret matched.
    for (const g of given) matched = constantTimeEqual(expected, g) || matched
  }
  return matched ? { ok: true, eventId, eventType, timestampSeconds } : { ok: false, reason: "signature_mismatch" }
}
