/**
 * The operator CLI's commands as data: each maps parsed arguments to one admin API request, so
 * the table is testable without a server.
 */
export interface CliRequest {
  readonly method: "GET" | "POST" | "PUT"
  readonly path: string
  readonly body?: Record<string, unknown>
}

export interface CliCommand {
  readonly usage: string
  readonly options: Readonly<Record<string, { readonly type: "string"; readonly required?: boolean; readonly description: string }>>
  readonly request: (o: Readonly<Record<string, string | undefined>>, positionals: ReadonlyArray<string>) => CliRequest
}

const seg = (s: string | undefined) => encodeURIComponent(s ?? "")

const sandbox = (kind: "payments" | "invoices" | "tasks", actions: ReadonlyArray<string>): CliCommand => ({
  usage: `frank sandbox ${kind} <id> ${actions.join("|")}`,
  options: {},
  request: (_o, [id, action]) => {
    if (id === undefined || action === undefined || !actions.includes(action)) throw new UsageError(`usage: frank sandbox ${kind} <id> ${actions.join("|")}`)
    return { method: "POST", path: `/admin/v1/sandbox/${kind}/${seg(id)}/${action}` }
  }
})

export class UsageError extends Error {}

const required = (o: Readonly<Record<string, string | undefined>>, name: string): string => {
  const v = o[name]
  if (v === undefined || v.length === 0) throw new UsageError(`--${name} is required`)
  return v
}

const number = (name: string, v: string): number => {
  const n = Number(v)
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got ${v}`)
  return n
}

export const commands: Readonly<Record<string, CliCommand>> = {
  "partners create": {
    usage: "frank partners create --name <name>",
    options: { name: { type: "string", required: true, description: "partner name" } },
    request: (o) => ({ method: "POST", path: "/admin/v1/partners", body: { name: required(o, "name") } })
  },
  "sessions create": {
    usage: "frank sessions create --partner <id> [--ttl <seconds>]",
    options: {
      partner: { type: "string", required: true, description: "partner id" },
      ttl: { type: "string", description: "session lifetime in seconds (default 86400)" }
    },
    request: (o) => ({
      method: "POST",
      path: `/admin/v1/partners/${seg(required(o, "partner"))}/sessions`,
      body: o.ttl === undefined ? {} : { ttlSeconds: number("ttl", o.ttl) }
    })
  },
  "credits add": {
    usage: "frank credits add --partner <id> --amount <franks> --kind bonus|adjustment [--description <text>] [--reference <id>]",
    options: {
      partner: { type: "string", required: true, description: "partner id" },
      amount: { type: "string", required: true, description: "amount in franks (2 decimals at most)" },
      kind: { type: "string", required: true, description: "bonus or adjustment" },
      description: { type: "string", description: "shown in the ledger" },
      reference: { type: "string", description: "idempotency reference" }
    },
    request: (o) => ({
      method: "POST",
      path: `/admin/v1/partners/${seg(required(o, "partner"))}/credits`,
      body: {
        amountFranks: number("amount", required(o, "amount")),
        kind: required(o, "kind"),
        ...(o.description === undefined ? {} : { description: o.description }),
        ...(o.reference === undefined ? {} : { reference: o.reference })
      }
    })
  },
  "tariff set": {
    usage: "frank tariff set --partner <id> --plan base|pro|max|ultra",
    options: {
      partner: { type: "string", required: true, description: "partner id" },
      plan: { type: "string", required: true, description: "assigned plan" }
    },
    request: (o) => ({ method: "PUT", path: `/admin/v1/partners/${seg(required(o, "partner"))}/tariff`, body: { assignedPlan: required(o, "plan") } })
  },
  "legacy-keys create": {
    usage: "frank legacy-keys create --partner <id>",
    options: { partner: { type: "string", required: true, description: "partner id" } },
    request: (o) => ({ method: "POST", path: `/admin/v1/partners/${seg(required(o, "partner"))}/legacy-keys` })
  },
  "clock advance": {
    usage: "frank clock advance --seconds <n>   (sandbox hosts only)",
    options: { seconds: { type: "string", required: true, description: "seconds to move the host clock forward" } },
    request: (o) => ({ method: "POST", path: "/admin/v1/sandbox/clock/advance", body: { seconds: number("seconds", required(o, "seconds")) } })
  },
  "sandbox payments": sandbox("payments", ["confirm", "reject", "cancel", "fail"]),
  "sandbox invoices": sandbox("invoices", ["pay", "cancel"]),
  "sandbox tasks": sandbox("tasks", ["succeed", "fail"])
}
