/**
 * The crash campaign against the real host on PostgreSQL: a mixed workload runs while the host is
 * killed with SIGKILL at random moments and restarted; a local receiver takes the webhooks. At
 * the end, through SQL and the API, every acknowledged operation is in the database, nothing is
 * charged or credited twice, the ledger invariants hold, every event ends delivered,
 * dead-lettered or uncertain with its attempts recorded, the receiver saw no event
 * acknowledged twice at one endpoint unless its delivery is uncertain, and at least 90 % of the
 * uncertain deliveries had reached the receiver (leaseLog.ts, which also counts them per kill).
 */
import { DatabaseSchema } from "@frank/adapters"
import pg from "pg"
import { call, type RunningHost, spawnHost } from "../spawnHost.js"
import { type LeaseReport, makeLeaseLog, type UncertainDelivery, uncertainViolations } from "./leaseLog.js"
import { type Received, receiverLatencyMs, startCrashReceiver } from "./receiver.js"
import { type CampaignPartner, newAcknowledged, oneOperation } from "./workload.js"

/** The host keeps its tables in schema frank (the default): the checks read them there. */
const frankTables = (url: string) => DatabaseSchema.withSearchPath(url, DatabaseSchema.DEFAULT_SCHEMA)

export interface CrashReport {
  readonly kills: number
  readonly acknowledged: number
  /** Deliveries at the end, by status. */
  readonly deliveries: Readonly<Record<string, number>>
  /** What the kills left leased and how many ended uncertain, per kill. */
  readonly leases: LeaseReport
  readonly violations: ReadonlyArray<string>
  /**
   * The sent-mark rule (at least 90 % of uncertain deliveries reached the receiver) when it
   * failed. Reported apart from `violations`: the CI form's small sample and instant receiver do
   * not yet hold it reliably (docs/reliability.md), so only the long form fails on it.
   */
  readonly sentMarkShortfall: ReadonlyArray<string>
}

const ENV = { FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_SANDBOX_CLOCK: "true", FRANK_SANDBOX_TASK_SECONDS: "0" }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const setUpPartner = async (host: RunningHost, name: string, receiverUrl: string): Promise<CampaignPartner> => {
  const admin = { authorization: `Bearer ${host.adminToken}` }
  const p = await call(host, "POST", "/admin/v1/partners", { headers: admin, body: { name } })
  const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin, body: {} })
  const k = await call(host, "POST", "/v1/billing/api-keys", {
    headers: { cookie: `service_token=${s.json.token}` },
    body: {}
  })
  const key = { "x-api-key": k.json.key as string }
  await call(host, "POST", `/admin/v1/partners/${p.json.id}/credits`, {
    headers: admin,
    body: { amountFranks: 5_000, kind: "bonus" }
  })
  await call(host, "PUT", "/v1/billing/legal-invoices/profile", {
    headers: key,
    body: {
      companyName: "ООО «Краш»",
      inn: "7707083893",
      kpp: "773601001",
      legalAddress: "117997, г. Москва, ул. Вавилова, д. 19",
      email: "buh@crash.example",
      expectedProfileRevision: 0
    }
  })
  const ack = newAcknowledged()
  const e = await call(host, "POST", "/v1/webhooks/endpoints", { headers: key, body: { url: receiverUrl } })
  if (e.status !== 201) throw new Error(`endpoint: ${e.status} ${e.text}`)
  ack.endpoints.add(e.json.id)
  return { id: p.json.id, key, ack }
}

/** Runs the workload with `width` clients until `stop` says so. */
const workload = async (host: RunningHost, partners: ReadonlyArray<CampaignPartner>, stop: () => boolean) => {
  let n = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (!stop()) {
        const p = partners[n % partners.length]!
        await oneOperation(host, p, n++).catch(() => undefined)
      }
    })
  )
}

/** Operations the host acknowledged with a 2xx, over every partner. */
const acknowledgedCount = (partners: ReadonlyArray<CampaignPartner>): number =>
  partners.reduce(
    (s, p) =>
      s +
      p.ack.payments.size +
      p.ack.confirmedPayments.size +
      p.ack.tasks.size +
      p.ack.settledTasks.size +
      p.ack.invoices.size +
      p.ack.paidInvoices.size,
    0
  )

/**
 * Each restarted host serves this many acknowledged operations before its kill, so the campaign
 * kills a host at work even when a loaded machine makes restarts slow (at load 15 a fixed 1-3 s
 * left 17 operations over 10 kills). Waits at most 20 s.
 */
const MIN_ACKNOWLEDGED_PER_KILL = 3
const untilAcknowledged = async (partners: ReadonlyArray<CampaignPartner>, target: number) => {
  for (let waited = 0; waited < 20_000 && acknowledgedCount(partners) < target; waited += 100) await sleep(100)
}

/**
 * A campaign in steps, so a test can run its kills in parts, each reported on its own: `kill(n)`
 * kills and restarts the host n times under load, `finish()` lets every retry schedule run out,
 * checks, and stops everything.
 */
export interface CrashCampaign {
  readonly kill: (count: number) => Promise<void>
  readonly finish: () => Promise<CrashReport>
  readonly stop: () => Promise<void>
}

export const startCrashCampaign = async (databaseUrl: string): Promise<CrashCampaign> => {
  const receiver = await startCrashReceiver(receiverLatencyMs(0))
  let host = await spawnHost({ ...ENV, DATABASE_URL: databaseUrl })
  const dataDir = host.dataDir
  let kills = 0
  const db = new pg.Client({ connectionString: frankTables(databaseUrl) })
  await db.connect()
  const leaseLog = makeLeaseLog()
  const stop = async () => {
    await host.stop()
    await receiver.close()
    await db.end()
  }
  const setUp = async () => [
    await setUpPartner(host, "Crash A", receiver.url),
    await setUpPartner(host, "Crash B", receiver.url)
  ]
  const partners = await setUp().catch(async (e) => {
    await stop()
    throw e
  })
  const kill = async (count: number) => {
    for (let k = 0; k < count; k++) {
      let stopped = false
      const running = workload(host, partners, () => stopped)
      await untilAcknowledged(partners, acknowledgedCount(partners) + MIN_ACKNOWLEDGED_PER_KILL)
      await sleep(500 + Math.random() * 1500)
      await host.kill()
      await leaseLog.afterKill(
        db,
        partners.map((p) => p.id),
        kills
      )
      stopped = true
      await running
      host = await spawnHost({ ...ENV, DATABASE_URL: databaseUrl }, { dataDir })
      kills++
    }
  }
  const finish = async (): Promise<CrashReport> => {
    try {
      // Leases of the killed hosts' attempts run out; every retry schedule runs to its end.
      const admin = { authorization: `Bearer ${host.adminToken}` }
      for (const seconds of [61, 120, 600, 3600, 4 * 3600, 6 * 3600]) {
        await call(host, "POST", "/admin/v1/sandbox/clock/advance", { headers: admin, body: { seconds } })
        await sleep(1500)
      }
      const { violations, deliveries, uncertain } = await verify(databaseUrl, partners, receiver.received)
      const leases = leaseLog.report(uncertain, receiver.started)
      const acknowledged = acknowledgedCount(partners)
      return { kills, acknowledged, deliveries, leases, violations, sentMarkShortfall: uncertainViolations(leases) }
    } finally {
      await stop()
    }
  }
  return { kill, finish, stop }
}

export const runCrashCampaign = async (databaseUrl: string, kills: number): Promise<CrashReport> => {
  const campaign = await startCrashCampaign(databaseUrl)
  try {
    await campaign.kill(kills)
  } catch (e) {
    await campaign.stop()
    throw e
  }
  return campaign.finish()
}

type Rows = ReadonlyArray<Record<string, unknown>>

const verify = async (
  databaseUrl: string,
  partners: ReadonlyArray<CampaignPartner>,
  received: ReadonlyArray<Received>
) => {
  const client = new pg.Client({ connectionString: frankTables(databaseUrl) })
  await client.connect()
  const q = async (text: string, values: Array<unknown>): Promise<Rows> => (await client.query(text, values)).rows
  const out: Array<string> = []
  const deliveries: Record<string, number> = {}
  let uncertain: Array<UncertainDelivery> = []
  try {
    for (const p of partners) out.push(...(await verifyPartner(q, p)))
    out.push(...(await verifyDeliveries(q, partners, received)))
    for (const row of await q(
      `SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE partner_id = ANY($1) GROUP BY status`,
      [partners.map((p) => p.id)]
    ))
      deliveries[String(row.status)] = Number(row.n)
    uncertain = (
      await q(
        `SELECT id::text, event_id::text FROM webhook_deliveries WHERE partner_id = ANY($1) AND status = 'uncertain'`,
        [partners.map((p) => p.id)]
      )
    ).map((r) => ({ id: String(r.id), eventId: String(r.event_id) }))
  } finally {
    await client.end()
  }
  return { violations: out, deliveries, uncertain }
}

type Query = (text: string, values: Array<unknown>) => Promise<Rows>

const verifyPartner = async (q: Query, p: CampaignPartner): Promise<Array<string>> => {
  const out: Array<string> = []
  const [acct] = await q(
    `SELECT total_minor::bigint AS t, used_minor::bigint AS u, reserved_minor::bigint AS r FROM ledger_accounts WHERE partner_id = $1`,
    [p.id]
  )
  const [fold] = await q(
    `SELECT
       COALESCE(SUM(CASE WHEN type = 'topup' THEN amount_minor WHEN type = 'bonus_reversal' THEN -amount_minor ELSE 0 END), 0) AS t,
       COALESCE(SUM(CASE WHEN type IN ('confirm', 'debit') THEN amount_minor WHEN type = 'refund' AND task_id IS NULL THEN -amount_minor ELSE 0 END), 0) AS u,
       COALESCE(SUM(CASE WHEN type = 'reservation' THEN amount_minor WHEN type = 'confirm' THEN -amount_minor WHEN type = 'refund' AND task_id IS NOT NULL THEN -amount_minor ELSE 0 END), 0) AS r
     FROM ledger_entries WHERE partner_id = $1`,
    [p.id]
  )
  const [open] = await q(
    `SELECT COALESCE(SUM(reserved_minor), 0) AS r FROM ledger_holds WHERE partner_id = $1 AND status = 'open'`,
    [p.id]
  )
  if (acct === undefined || fold === undefined) return [`${p.id}: no ledger account`]
  if (`${acct.t}/${acct.u}/${acct.r}` !== `${fold.t}/${fold.u}/${fold.r}`)
    out.push(`${p.id}: account ${acct.t}/${acct.u}/${acct.r} differs from Σ entries ${fold.t}/${fold.u}/${fold.r}`)
  if (String(acct.r) !== String(open?.r)) out.push(`${p.id}: reserved ${acct.r} but open holds sum to ${open?.r}`)
  for (const row of await q(
    `SELECT task_id, COUNT(*) FILTER (WHERE type = 'reservation') AS res,
            COUNT(*) FILTER (WHERE type = 'confirm' OR (type = 'refund' AND kind <> 'task_release')) AS settled
       FROM ledger_entries WHERE partner_id = $1 AND task_id IS NOT NULL GROUP BY task_id`,
    [p.id]
  ))
    if (Number(row.res) > 1 || Number(row.settled) > 1)
      out.push(`${p.id}: task ${row.task_id} reserved ${row.res}, settled ${row.settled} times`)
  for (const id of p.ack.tasks)
    if ((await q(`SELECT 1 FROM tasks WHERE partner_id = $1 AND id = $2`, [p.id, id])).length !== 1)
      out.push(`${p.id}: acknowledged task ${id} missing`)
  for (const [id] of p.ack.settledTasks) {
    const [t] = await q(`SELECT status FROM tasks WHERE partner_id = $1 AND id = $2`, [p.id, id])
    if (t?.status !== "succeeded" && t?.status !== "failed") out.push(`${p.id}: reported task ${id} is ${t?.status}`)
  }
  out.push(...(await verifyCredits(q, p)))
  return out
}

const verifyCredits = async (q: Query, p: CampaignPartner): Promise<Array<string>> => {
  const out: Array<string> = []
  const credits = async (ref: string) =>
    Number(
      (
        await q(
          `SELECT COUNT(*) AS n FROM ledger_entries WHERE partner_id = $1 AND reference = $2 AND type = 'topup'`,
          [p.id, ref]
        )
      )[0]?.n
    )
  for (const id of p.ack.payments) {
    const [row] = await q(`SELECT status FROM payments WHERE partner_id = $1 AND id = $2`, [p.id, id])
    if (row === undefined) out.push(`${p.id}: acknowledged payment ${id} missing`)
    const n = await credits(id)
    if (n !== (row?.status === "confirmed" ? 1 : 0))
      out.push(`${p.id}: payment ${id} (${row?.status}) credited ${n} times`)
    if (p.ack.confirmedPayments.has(id) && row?.status !== "confirmed")
      out.push(`${p.id}: confirmed payment ${id} is ${row?.status}`)
  }
  for (const id of p.ack.invoices) {
    const [row] = await q(`SELECT status FROM legal_invoices WHERE partner_id = $1 AND id = $2`, [p.id, id])
    if (row === undefined) out.push(`${p.id}: acknowledged invoice ${id} missing`)
    const n = await credits(id)
    if (n !== (row?.status === "paid" ? 1 : 0)) out.push(`${p.id}: invoice ${id} (${row?.status}) credited ${n} times`)
    if (p.ack.paidInvoices.has(id) && row?.status !== "paid") out.push(`${p.id}: paid invoice ${id} is ${row?.status}`)
  }
  return out
}

const verifyDeliveries = async (
  q: Query,
  partners: ReadonlyArray<CampaignPartner>,
  received: ReadonlyArray<Received>
): Promise<Array<string>> => {
  const out: Array<string> = []
  const ids = partners.map((p) => p.id)
  for (const d of await q(
    `SELECT d.id, d.status, d.event_type, d.attempts, d.event_id,
            (SELECT COUNT(*) FROM webhook_attempts a WHERE a.partner_id = d.partner_id AND a.delivery_id = d.id) AS recorded
       FROM webhook_deliveries d WHERE d.partner_id = ANY($1)`,
    [ids]
  )) {
    if (!["delivered", "dead_lettered", "uncertain"].includes(String(d.status)))
      out.push(`delivery ${d.id} (${d.event_type}) still ${d.status}`)
    if (Number(d.recorded) !== Number(d.attempts))
      out.push(`delivery ${d.id}: ${d.attempts} attempts, ${d.recorded} recorded`)
  }
  // Every money movement's event is in the outbox: a credited payment has its topup event.
  for (const row of await q(
    `SELECT e.partner_id, e.reference FROM ledger_entries e WHERE e.partner_id = ANY($1) AND e.type = 'topup' AND e.reference IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM webhook_events w WHERE w.partner_id = e.partner_id AND w.type IN ('billing.topup.confirmed', 'billing.invoice.status_changed')
                       AND w.payload LIKE '%' || e.reference || '%')`,
    [ids]
  ))
    out.push(`${row.partner_id}: credit ${row.reference} has no event`)
  const uncertain = new Set(
    (
      await q(`SELECT event_id::text FROM webhook_deliveries WHERE partner_id = ANY($1) AND status = 'uncertain'`, [
        ids
      ])
    ).map((r) => String(r.event_id))
  )
  const acks = new Map<string, number>()
  for (const r of received) {
    const id = String(r.headers["x-service-event-id"])
    acks.set(id, (acks.get(id) ?? 0) + 1)
  }
  for (const [id, n] of acks)
    if (n > 1 && !uncertain.has(id)) out.push(`event ${id} acknowledged ${n} times and not uncertain`)
  return out
}
