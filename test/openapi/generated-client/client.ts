// A partner's client generated from the host's /openapi.json by openapi-typescript, called through
// openapi-fetch. The test typechecks this file (strict) against the generated schema.d.ts, then runs
// it against the host (copied beside the generated schema.ts; the repository's typecheck skips it). Lines marked @ts-expect-error prove the error codes are enums, not strings.
import createClient from "openapi-fetch"
import type { paths } from "./schema.js"

const client = createClient<paths>({ baseUrl: process.env.FRANK_BASE_URL ?? "" })
const headers = { "x-api-key": process.env.FRANK_API_KEY ?? "", "x-forwarded-for": process.env.FRANK_IP ?? "" }

const balance = await client.GET("/v1/billing/balance", { headers })
const available: number | undefined = balance.data?.available

// A body that breaks the schema: the 400's code is one of the operation's codes.
const invalid = await client.POST("/v1/billing/pricing/estimate", {
  headers,
  // @ts-expect-error modelId must be a string
  body: { modelId: 42 }
})
type EstimateCode = "VALIDATION_FAILED" | "IDEMPOTENCY_KEY_INVALID" | "PRICING_MODEL_UNKNOWN" | "ESTIMATE_INVALID"
let estimateCode: EstimateCode | undefined
if (invalid.error?.statusCode === 400) {
  estimateCode = invalid.error.code
  // @ts-expect-error a code the operation cannot answer is not in the enum
  if (invalid.error.code === "RATE_LIMITED") estimateCode = undefined
}

const anonymous = await client.GET("/v1/billing/balance", { headers: { "x-api-key": "svc_live_not_a_key" } })
let authCode: "API_KEY_INVALID" | "API_KEY_EXPIRED" | undefined
if (anonymous.error?.statusCode === 401) {
  authCode = anonymous.error.code
  // @ts-expect-error API_KEY_SCOPE_REQUIRED is a 403, not a 401
  if (anonymous.error.code === "API_KEY_SCOPE_REQUIRED") authCode = undefined
}

console.log(
  JSON.stringify({
    balance: { status: balance.response.status, available },
    invalid: { status: invalid.response.status, code: estimateCode, message: invalid.error?.message },
    anonymous: { status: anonymous.response.status, code: authCode }
  })
)
