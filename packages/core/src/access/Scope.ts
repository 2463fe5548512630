/**
 * API key scopes (spec "Scopes"). `*` is not a scope and is never accepted.
 */
import { Schema } from "effect"

/** The scopes an API key may carry (spec "Scopes"). */
export const Scope = Schema.Literal(
  "usage:read",
  "billing:read",
  "pricing:read",
  "tasks:read",
  "media:run",
  "webhooks:read",
  "webhooks:manage"
)
export type Scope = typeof Scope.Type

export const allScopes: ReadonlyArray<Scope> = Scope.literals

export const scopeDescriptions: Readonly<Record<Scope, string>> = {
  "usage:read": "daily usage of the account; credential check in an automation tool",
  "billing:read": "balance, tariff, operations, top-up history",
  "pricing:read": "price catalog and cost estimate (no charge)",
  "tasks:read": "statuses and results of own tasks",
  "media:run": "launching processing and generation (may spend funds)",
  "webhooks:read": "reading endpoints and delivery log",
  "webhooks:manage": "creating endpoints, rotating secret, test, replaying deliveries"
}

export const isScope = (s: string): s is Scope => (allScopes as ReadonlyArray<string>).includes(s)
