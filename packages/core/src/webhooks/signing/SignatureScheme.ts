/**
 * How an endpoint's deliveries are signed (issue 23): `frank` (the spec's X-Service-* headers,
 * the default, and what every endpoint made before the field existed keeps), `standard-webhooks`
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature` as the Standard Webhooks specification
 * defines them), or `both` header sets on every delivery, for a receiver moving from one to the other.
 */
import { Schema } from "effect"

/** Which headers sign an endpoint's deliveries: Frank's, Standard Webhooks' or both. */
export const SignatureScheme = Schema.Literal("frank", "standard-webhooks", "both")
export type SignatureScheme = typeof SignatureScheme.Type

export const DEFAULT_SIGNATURE_SCHEME: SignatureScheme = "frank"

/** Whether deliveries carry Frank's X-Service-* headers. */
export const signsFrank = (scheme: SignatureScheme): boolean => scheme !== "standard-webhooks"

/** Whether deliveries carry the Standard Webhooks headers. */
export const signsStandard = (scheme: SignatureScheme): boolean => scheme !== "frank"
