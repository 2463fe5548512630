/**
 * The receiver side of the signature rules, for integrators: take the raw bytes, compute the
 * HMAC with each accepted secret, compare in constant time with every signature the request
 * carries, and reject timestamps more than 300 s from now. Both schemes an endpoint can use:
 * Frank's (spec "Signature verification (receiver)": `sha256=<hex>` over `<timestamp>.<raw body>`
 * in X-Service-Signature or X-Service-Signature-Previous) and Standard Webhooks (`v1,<base64>`
 * over `<webhook-id>.<timestamp>.<raw body>`, space-separated in webhook-signature).
 */
import { constantTimeEqual, sign } from "../signing/signature.js"
import { signStandard, STANDARD_SIGNATURE_VERSION } from "../signing/standardSignature.js"

/** How far a delivery's timestamp may be from the receiver's clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300

/** The header set a delivery was verified by ("both" endpoints send the two; one is enough). */
export type VerifiedScheme = "frank" | "standard-webhooks"

/** Why a delivery failed verification. */
export type VerifyFailure =
  | "missing_headers"
  | "malformed_timestamp"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch"

/** The result of verifyWebhook: ok with the delivery's facts, or the failure reason. */
export type VerifyResult =
  | {
      readonly ok: true
      readonly scheme: VerifiedScheme
      readonly eventId: string
      /** From X-Service-Event; null for a Standard Webhooks delivery, which has no such header (read the body's). */
      readonly eventType: string | null
      readonly timestampSeconds: number
    }
  | { readonly ok: false; readonly reason: VerifyFailure }

/** What verifyWebhook needs: the secrets, the headers, the raw body and the time. */
export interface VerifyWebhookInput {
  /** The endpoint secret, or several during a rotation on the receiver's side. */
  readonly secret: string | ReadonlyArray<string>
  /** Request headers; names are matched case-insensitively. */
  readonly headers: Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly rawBody: Uint8Array | string
  /** Current time in epoch milliseconds (pass your clock; nothing here reads the wall clock). */
  readonly now: number
  readonly toleranceSeconds?: number
  /**
   * Which headers to check. Omitted: Frank's when the request has an X-Service-Signature header,
   * else the Standard Webhooks ones.
   */
  readonly scheme?: VerifiedScheme
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

/** What a scheme's headers say: who the event is, when it was signed, the signatures, and how to make one. */
interface Claimed {
  readonly eventId: string | undefined
  readonly eventType: string | null | undefined
  readonly timestamp: string | undefined
  readonly given: ReadonlyArray<string>
  readonly expected: (secret: string, timestampSeconds: number) => Promise<string>
}

const frankClaim = (input: VerifyWebhookInput): Claimed => ({
  eventId: header(input.headers, "x-service-event-id"),
  eventType: header(input.headers, "x-service-event"),
  timestamp: header(input.headers, "x-service-timestamp"),
  given: [header(input.headers, "x-service-signature"), header(input.headers, "x-service-signature-previous")].filter(
    (s): s is string => s !== undefined && s.length > 0
  ),
  expected: (secret, ts) => sign(secret, ts, input.rawBody)
})

const standardClaim = (input: VerifyWebhookInput): Claimed => {
  const eventId = header(input.headers, "webhook-id")
  return {
    eventId,
    eventType: null,
    timestamp: header(input.headers, "webhook-timestamp"),
    // Signatures of other versions (`v1a`, asymmetric) are not Frank's to check: skipped, as the libraries do.
    given: (header(input.headers, "webhook-signature") ?? "")
      .split(" ")
      .filter((s) => s.startsWith(`${STANDARD_SIGNATURE_VERSION},`)),
    expected: (secret, ts) => signStandard(secret, eventId ?? "", ts, input.rawBody)
  }
}

const schemeOf = (input: VerifyWebhookInput): VerifiedScheme =>
  input.scheme ??
  (header(input.headers, "x-service-signature") === undefined &&
  header(input.headers, "webhook-signature") !== undefined
    ? "standard-webhooks"
    : "frank")

/** Verifies a delivery's signature and timestamp without Effect; never throws for a bad request. */
export const verifyWebhook = async (input: VerifyWebhookInput): Promise<VerifyResult> => {
  const scheme = schemeOf(input)
  const { eventId, eventType, timestamp, given, expected } =
    scheme === "frank" ? frankClaim(input) : standardClaim(input)
  // An empty header counts as missing: an empty event id would make every such delivery one event.
  if (!timestamp || !eventId || eventType === undefined || eventType === "" || given.length === 0)
    return { ok: false, reason: "missing_headers" }
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "malformed_timestamp" }
  const timestampSeconds = Number(timestamp)
  const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS
  if (Math.abs(Math.floor(input.now / 1000) - timestampSeconds) > tolerance)
    return { ok: false, reason: "timestamp_out_of_tolerance" }
  const secrets = typeof input.secret === "string" ? [input.secret] : input.secret
  let matched = false
  for (const secret of secrets) {
    // An empty key signs nothing worth trusting (and Web Crypto refuses it), nor does one that is
    // not base64 for the standard scheme: such a secret matches no signature.
    if (secret.length === 0) continue
    const mine = await expected(secret, timestampSeconds).catch(() => undefined)
    if (mine === undefined) continue
    // Every comparison runs, so timing does not reveal which header or secret matched.
    for (const g of given) matched = constantTimeEqual(mine, g) || matched
  }
  return matched
    ? { ok: true, scheme, eventId, eventType, timestampSeconds }
    : { ok: false, reason: "signature_mismatch" }
}
