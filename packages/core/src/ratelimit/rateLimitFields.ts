/**
 * The RateLimit header fields of draft-ietf-httpapi-ratelimit-headers (-10 and later), as
 * Structured Fields (RFC 9651): `RateLimit-Policy` lists every limit that applies to the request
 * (`"key";q=60;w=60, "ip";q=100;w=60`: quota and window in seconds) and `RateLimit` names the one
 * closest to its limit with what remains and the seconds until its window resets
 * (`"key";r=41;t=23`). Policy names are sf-strings of the limit's kind, not its counter key, so
 * no address or key id is disclosed.
 */
import type { LimitVerdict } from "./FixedWindow.js"

/** The header names a CORS layer has to expose for a browser client to read them. */
export const RATE_LIMIT_EXPOSED_HEADERS = ["RateLimit", "RateLimit-Policy", "Retry-After"] as const

const POLICY_NAMES: Readonly<Record<string, string>> = {
  api_key: "key",
  session: "session",
  ip_method: "ip",
  import: "import"
}

/** The policy name a limit is published under (`key`, `session`, `ip`, `import`). */
export const policyName = (ruleName: string): string => POLICY_NAMES[ruleName] ?? ruleName

/** An sf-string: the names are ASCII words, so only `"` and `\` would need escaping. */
const sfString = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`

/** The `RateLimit-Policy` field value: one item per limit that applies. */
export const policyField = (verdicts: ReadonlyArray<LimitVerdict>): string =>
  verdicts
    .map((v) => `${sfString(policyName(v.rule.name))};q=${v.limit};w=${Math.round(v.rule.windowMs / 1000)}`)
    .join(", ")

/** The `RateLimit` field value for the reported limit, `resetSeconds` before its window ends. */
export const limitField = (v: LimitVerdict, resetSeconds: number = v.resetSeconds): string =>
  `${sfString(policyName(v.rule.name))};r=${v.remaining};t=${resetSeconds}`
