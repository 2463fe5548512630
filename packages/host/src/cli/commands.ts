/**
 * The operator CLI's admin commands as data: each maps parsed options and positionals to one admin
 * API request (docs/contract.md §6), so the table is testable without a server and the help text is
 * generated from the same entries. Checks here are only the ones that make a typo obvious before
 * a round trip; the server stays the authority on every rule.
 */
import { UsageError } from "./UsageError.js"

export { UsageError }

export interface CliRequest {
  readonly method: "GET" | "POST" | "PUT"
  /** Path below the base URL, ids already percent-encoded. */
  readonly path: string
  readonly body?: Record<string, unknown>
}

export interface CliOption {
  readonly type: "string"
  readonly required?: boolean
  readonly description: string
}

export type CliValues = Readonly<Record<string, string | undefined>>

export interface CliCommand {
  readonly usage: string
  readonly summary: string
  readonly options: Readonly<Record<string, CliOption>>
  /** Positionals after the two command words (sandbox commands: `<id> <action>`). */
  readonly positionals?: number
  readonly request: (o: CliValues, positionals: ReadonlyArray<string>) => CliRequest
}

const seg = (s: string) => encodeURIComponent(s)

const required = (o: CliValues, name: string): string => {
  const v = o[name]
  if (v === undefined || v.trim().length === 0) throw new UsageError(`--${name} is required`)
  return v
}

const number = (name: string, v: string): number => {
  const n = Number(v)
  if (v.trim().length === 0 || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${v}"`)
  return n
}

const integer = (name: string, v: string): number => {
  const n = number(name, v)
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be a whole number, got "${v}"`)
  return n
}

const oneOf = <A extends string>(name: string, v: string, allowed: ReadonlyArray<A>): A => {
  if (!(allowed as ReadonlyArray<string>).includes(v))
    throw new UsageError(`--${name} must be one of ${allowed.join(", ")}, got "${v}"`)
  return v as A
}

const partnerPath = (o: CliValues, rest: string) => `/admin/v1/partners/${seg(required(o, "partner"))}/${rest}`

const PARTNER = { type: "string", required: true, description: "partner id" } as const

export const CREDIT_KINDS = ["bonus", "adjustment"] as const
export const PLANS = ["base", "pro", "max", "ultra"] as const

const sandbox = (kind: "payments" | "invoices" | "tasks", actions: ReadonlyArray<string>): CliCommand => ({
  usage: `frank sandbox ${kind} <id> ${actions.join("|")}`,
  summary: `drive a sandbox ${kind.slice(0, -1)} to its next state`,
  options: {},
  positionals: 2,
  request: (_o, [id, action]) => {
    if (id === undefined || action === undefined) throw new UsageError(`expected <id> and one of ${actions.join("|")}`)
    if (!actions.includes(action))
      throw new UsageError(`unknown action "${action}": expected one of ${actions.join("|")}`)
    return { method: "POST", path: `/admin/v1/sandbox/${kind}/${seg(id)}/${action}` }
  }
})

export const commands: Readonly<Record<string, CliCommand>> = {
  "partners create": {
    usage: "frank partners create --name <name>",
    summary: "create a partner; prints {id, name, createdAt}",
    options: { name: { type: "string", required: true, description: "partner name" } },
    request: (o) => ({ method: "POST", path: "/admin/v1/partners", body: { name: required(o, "name") } })
  },
  "sessions create": {
    usage: "frank sessions create --partner <id> [--ttl <seconds>]",
    summary:
      "open a partner session; prints {token, expiresAt, signInUrl} (the service_token cookie and a one-time cabinet link)",
    options: {
      partner: PARTNER,
      ttl: { type: "string", description: "session lifetime in seconds (server default 86400)" }
    },
    request: (o) => ({
      method: "POST",
      path: partnerPath(o, "sessions"),
      body: o.ttl === undefined ? {} : { ttlSeconds: integer("ttl", o.ttl) }
    })
  },
  "credits add": {
    usage:
      "frank credits add --partner <id> --amount <franks> --kind bonus|adjustment [--description <text>] [--reference <id>] [--expires-at <iso>] [--priority <0..100>]",
    summary: "credit a partner's balance; prints {transactionId, replayed}",
    options: {
      partner: PARTNER,
      amount: {
        type: "string",
        required: true,
        description: "amount in franks, at most 2 decimals (negative: --amount=-5)"
      },
      kind: { type: "string", required: true, description: "bonus or adjustment" },
      description: { type: "string", description: "shown in the partner's ledger" },
      reference: { type: "string", description: "idempotency reference: repeating it changes nothing" },
      "expires-at": {
        type: "string",
        description: "bonus only: ISO 8601 instant; what is left unreserved then is clawed back"
      },
      priority: { type: "string", description: "bonus only: 0..100 (default 50); lower numbers are spent first" }
    },
    request: (o) => ({
      method: "POST",
      path: partnerPath(o, "credits"),
      body: {
        amountFranks: number("amount", required(o, "amount")),
        kind: oneOf("kind", required(o, "kind"), CREDIT_KINDS),
        ...(o.description === undefined ? {} : { description: o.description }),
        ...(o.reference === undefined ? {} : { reference: o.reference }),
        ...(o["expires-at"] === undefined ? {} : { expiresAt: o["expires-at"] }),
        ...(o.priority === undefined ? {} : { priority: integer("priority", o.priority) })
      }
    })
  },
  "tariff set": {
    usage: "frank tariff set --partner <id> --plan base|pro|max|ultra",
    summary: "assign a partner's tariff plan",
    options: {
      partner: PARTNER,
      plan: { type: "string", required: true, description: "base, pro, max or ultra" }
    },
    request: (o) => ({
      method: "PUT",
      path: partnerPath(o, "tariff"),
      body: { assignedPlan: oneOf("plan", required(o, "plan"), PLANS) }
    })
  },
  "legacy-keys create": {
    usage: "frank legacy-keys create --partner <id>",
    summary: "register a legacy svc_ key for a partner; prints {key}",
    options: { partner: PARTNER },
    request: (o) => ({ method: "POST", path: partnerPath(o, "legacy-keys") })
  },
  "clock advance": {
    usage: "frank clock advance --seconds <n>",
    summary: "sandbox hosts only (FRANK_SANDBOX_CLOCK=true): move the host's clock forward",
    options: { seconds: { type: "string", required: true, description: "seconds to move the clock forward" } },
    request: (o) => ({
      method: "POST",
      path: "/admin/v1/sandbox/clock/advance",
      body: { seconds: integer("seconds", required(o, "seconds")) }
    })
  },
  "sandbox payments": sandbox("payments", ["confirm", "reject", "cancel", "fail"]),
  "sandbox invoices": sandbox("invoices", ["pay", "cancel"]),
  "sandbox tasks": sandbox("tasks", ["succeed", "fail"])
}
