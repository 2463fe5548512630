/**
 * One tree's reference host for bench/sustained: spawned from that checkout's sources on the
 * PostgreSQL server, in a fresh schema of its own (FRANK_DB_SCHEMA) and with an application_name
 * of its own, so its backends can be told from other processes' on the shared database. Partners,
 * keys and endpoints are made through the admin and partner APIs (docs/contract.md §6), and every
 * event is emitted through a real write path over HTTP.
 */
import type { ChildProcess } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { Agent, request } from "undici"
import { startSource, waitFor } from "../support/hostProcess.js"
import { adminStatement, freePort } from "../support/local.js"

/** A partner of the bench: its full key and its one endpoint, pointing at the receiver. */
export interface BenchPartner {
  readonly id: string
  readonly key: string
  readonly endpointId: string
}

/** How an event is emitted: `test` is POST …/endpoints/{id}/test; `topup` a payment link confirmed by the sandbox acquirer. */
export type EmitKind = "test" | "topup"

export interface BenchHost {
  readonly tree: string
  readonly schema: string
  readonly applicationName: string
  readonly child: ChildProcess
  readonly partners: ReadonlyArray<BenchPartner>
  /** Emits one event; answers the id the receiver will find it by (eventId or transactionId). */
  readonly emit: (p: BenchPartner, kind: EmitKind) => Promise<string>
  /** Pauses (false) or resumes (true) every partner's endpoint: PATCH {active}. */
  readonly setActive: (active: boolean) => Promise<void>
  readonly stop: () => Promise<void>
}

const agent = new Agent({ connections: 256, pipelining: 1 })

/** One JSON request; throws on an answer outside 2xx (the bench counts it as a failed emit). */
const call = async (method: "POST" | "PATCH", url: string, headers: Record<string, string>, body?: unknown) => {
  const res = await request(url, {
    method,
    dispatcher: agent,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body ?? {})
  })
  const text = await res.body.text()
  if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

/** Starts `tree`'s host and makes `partnerCount` partners with an endpoint each at `receiverUrl`. */
export const startHost = async (
  tree: string,
  index: number,
  options: { databaseUrl: string; receiverUrl: string; partnerCount: number; flags: ReadonlyArray<string> }
): Promise<BenchHost> => {
  const schema = `frank_sustained_${process.pid}_${index}`
  const applicationName = `frank-sustained-${process.pid}-${index}`
  const dbUrl = new URL(options.databaseUrl)
  dbUrl.searchParams.set("application_name", applicationName)
  const adminToken = randomBytes(16).toString("hex")
  const port = await freePort()
  const env = {
    PORT: String(port),
    DATABASE_URL: dbUrl.toString(),
    FRANK_DB_SCHEMA: schema,
    FRANK_KEY_PEPPER: randomBytes(16).toString("hex"),
    FRANK_ADMIN_TOKEN: adminToken,
    FRANK_RATE_LIMIT_MULTIPLIER: "1000000",
    FRANK_ALLOW_PRIVATE_NETWORK: "true",
    FRANK_SANDBOX_TASK_SECONDS: "0",
    FRANK_DATA_DIR: `/tmp/frank-bench-sustained-${process.pid}-${index}`,
    LOG_LEVEL: "warning"
  }
  const child = startSource(options.flags, ["packages/host/src/main.ts"], env, tree)
  const base = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r))
      child.kill("SIGTERM")
      await exited
    }
    await adminStatement(options.databaseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  }
  try {
    await waitFor(async () => (await fetch(`${base}/readyz`)).ok, `host of ${tree}`)
    const admin = { authorization: `Bearer ${adminToken}` }
    const partners: Array<BenchPartner> = []
    for (let i = 0; i < options.partnerCount; i++) {
      const partner = await call("POST", `${base}/admin/v1/partners`, admin, { name: `Sustained ${i}` })
      const session = await call("POST", `${base}/admin/v1/partners/${partner.id}/sessions`, admin, {})
      const issued = await call("POST", `${base}/v1/billing/api-keys`, { cookie: `service_token=${session.token}` }, {})
      const key = String(issued.key)
      const endpoint = await call(
        "POST",
        `${base}/v1/webhooks/endpoints`,
        { "x-api-key": key },
        {
          url: options.receiverUrl
        }
      )
      partners.push({ id: String(partner.id), key, endpointId: String(endpoint.id) })
    }
    const emit = async (p: BenchPartner, kind: EmitKind) => {
      const auth = { "x-api-key": p.key }
      if (kind === "test")
        return String((await call("POST", `${base}/v1/webhooks/endpoints/${p.endpointId}/test`, auth)).eventId)
      const link = await call(
        "POST",
        `${base}/v1/billing/payment/link`,
        { ...auth, "idempotency-key": randomUUID() },
        {
          amountRub: 1
        }
      )
      const confirmed = await call("POST", `${base}/admin/v1/sandbox/payments/${link.paymentId}/confirm`, admin)
      return String(confirmed.transactionId)
    }
    const setActive = async (active: boolean) => {
      for (const p of partners)
        await call("PATCH", `${base}/v1/webhooks/endpoints/${p.endpointId}`, { "x-api-key": p.key }, { active })
    }
    return { tree, schema, applicationName, child, partners, emit, setActive, stop }
  } catch (e) {
    await stop()
    throw e
  }
}
