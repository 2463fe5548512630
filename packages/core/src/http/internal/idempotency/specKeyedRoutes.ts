/** Changes whose `Idempotency-Key` the spec defines with rules of its own (partner-api.md). */
export const SPEC_KEYED_ROUTES: ReadonlyArray<string> = ["POST /v1/billing/payment/link", "POST /v1/tasks"]
