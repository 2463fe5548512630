/**
 * Which limits apply to a request (spec "Limits"; all apply at once). The per-IP limit is counted
 * per method (route template), with the spec's exceptions; the per-key limit is one counter
 * shared by the billing and webhook routes, and never by generation, tasks or import.
 */
import type { LimitRule } from "./FixedWindow.js"
import { MINUTE_MS } from "../timeUnits.js"
import type { PartnerId } from "../EntityIds.js"

/** Requests allowed per minute, per API key and per partner session. */
export interface RateLimitConfig {
  readonly perApiKeyPerMinute: number
  readonly perPartnerSessionPerMinute: number
  readonly perIpPerMethodPerMinute: number
  readonly importPerMinute: number
  /** Per-IP limits of particular methods, keyed `METHOD /route/template`. */
  readonly perIpExceptions: Readonly<Record<string, number>>
}

/** The limits of spec "Rate limits". */
export const defaultRateLimitConfig: RateLimitConfig = {
  perApiKeyPerMinute: 60,
  perPartnerSessionPerMinute: 60,
  perIpPerMethodPerMinute: 100,
  importPerMinute: 10,
  perIpExceptions: {
    "POST /v1/billing/payment/link": 3,
    "POST /v1/billing/legal-invoices/create": 3,
    "POST /v1/billing/legal-invoices/:id/refresh": 6,
    "POST /v1/billing/legal-invoices/:id/sbp-link": 6,
    "GET /v1/billing/legal-invoices/:id/pdf": 12,
    "POST /v1/webhooks/endpoints": 10,
    "POST /v1/webhooks/endpoints/:id/rotate-secret": 10,
    "POST /v1/webhooks/endpoints/:id/test": 6,
    "POST /v1/webhooks/endpoints/:id/recover": 10,
    "POST /v1/webhooks/deliveries/:id/replay": 30
  }
}

/** Every limit multiplied by `factor` (benchmarks raise limits this way; never below 1). */
export const scaleRateLimits = (config: RateLimitConfig, factor: number): RateLimitConfig => {
  const scale = (n: number) => Math.max(1, Math.floor(n * factor))
  return {
    perApiKeyPerMinute: scale(config.perApiKeyPerMinute),
    perPartnerSessionPerMinute: scale(config.perPartnerSessionPerMinute),
    perIpPerMethodPerMinute: scale(config.perIpPerMethodPerMinute),
    importPerMinute: scale(config.importPerMinute),
    perIpExceptions: Object.fromEntries(Object.entries(config.perIpExceptions).map(([k, v]) => [k, scale(v)]))
  }
}

export interface RequestIdentity {
  readonly method: string
  /** The route template, e.g. `/v1/billing/api-keys/:id` — never the concrete path. */
  readonly route: string
  readonly ip: string
  readonly apiKeyId?: string | undefined
  /** The partner of a cabinet session. */
  readonly sessionPartnerId?: PartnerId | undefined
  readonly partnerId?: PartnerId | undefined
}

const IMPORT_ROUTE = "POST /service/jobs/import"

/** Routes whose API-key requests share the per-key counter: billing, webhooks, auth check. */
export const countsAgainstKeyLimit = (route: string): boolean =>
  route.startsWith("/v1/billing/") || route.startsWith("/v1/webhooks/") || route.startsWith("/v1/auth/")

export const rulesFor = (req: RequestIdentity, config: RateLimitConfig): ReadonlyArray<LimitRule> => {
  const method = `${req.method.toUpperCase()} ${req.route}`
  const rules: LimitRule[] = [
    {
      key: `ip:${req.ip}:${method}`,
      name: "ip_method",
      limit: config.perIpExceptions[method] ?? config.perIpPerMethodPerMinute,
      windowMs: MINUTE_MS
    }
  ]
  if (req.apiKeyId !== undefined && countsAgainstKeyLimit(req.route))
    rules.push({ key: `key:${req.apiKeyId}`, name: "api_key", limit: config.perApiKeyPerMinute, windowMs: MINUTE_MS })
  if (req.sessionPartnerId !== undefined)
    rules.push({
      key: `session:${req.sessionPartnerId}`,
      name: "session",
      limit: config.perPartnerSessionPerMinute,
      windowMs: MINUTE_MS
    })
  if (method === IMPORT_ROUTE && req.partnerId !== undefined)
    rules.push({ key: `import:${req.partnerId}`, name: "import", limit: config.importPerMinute, windowMs: MINUTE_MS })
  return rules
}
