/**
 * `node --conditions=@frank/source --import tsx test/e2e/crash/burst.ts --kills N [--burst B]`:
 * issue 31's reproduction as a script. Each round sends B webhook test events at once and
 * SIGKILLs the host 0.5–2 s later, while deliveries are due, claimed and in flight; the host is
 * restarted on the same data. At the end the sandbox clock passes every lease and the script
 * prints, per kill, the leases the killed host left and how many ended `uncertain`, and how many
 * uncertain deliveries had reached the receiver (leaseLog.ts). DATABASE_URL must name PostgreSQL.
 * Exits 1 when fewer than 90 % of the uncertain deliveries had reached the receiver.
 */
import { DatabaseSchema } from "@frank/adapters"
import pg from "pg"
import { call, spawnHost } from "../spawnHost.js"
import { describeLeases, makeLeaseLog, uncertainViolations } from "./leaseLog.js"
import { receiverLatencyMs, startCrashReceiver } from "./receiver.js"

/** The host keeps its tables in schema frank (the default): the checks read them there. */
const frankTables = (url: string) => DatabaseSchema.withSearchPath(url, DatabaseSchema.DEFAULT_SCHEMA)

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const kills = arg("--kills", 10)
const burst = arg("--burst", 200)
const databaseUrl = process.env.DATABASE_URL ?? ""
if (databaseUrl.length === 0) {
  console.error("DATABASE_URL must name a PostgreSQL database")
  process.exit(2)
}
const ENV = {
  FRANK_ALLOW_PRIVATE_NETWORK: "true",
  FRANK_SANDBOX_CLOCK: "true",
  FRANK_RATE_LIMIT_MULTIPLIER: "100",
  DATABASE_URL: databaseUrl
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const receiver = await startCrashReceiver(receiverLatencyMs(0))
const receiverUrl = receiver.url

let host = await spawnHost(ENV)
const admin = { authorization: `Bearer ${host.adminToken}` }
const p = await call(host, "POST", "/admin/v1/partners", { headers: admin, body: { name: "Burst" } })
const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin, body: {} })
const k = await call(host, "POST", "/v1/billing/api-keys", {
  headers: { cookie: `service_token=${s.json.token}` },
  body: {}
})
const key = { "x-api-key": k.json.key as string }
const e = await call(host, "POST", "/v1/webhooks/endpoints", { headers: key, body: { url: receiverUrl } })
const partnerIds = [p.json.id as string]
const db = new pg.Client({ connectionString: frankTables(databaseUrl) })
await db.connect()
const leaseLog = makeLeaseLog()
const began = performance.now()

for (let kill = 0; kill < kills; kill++) {
  const sends = Promise.all(
    Array.from({ length: burst }, () =>
      call(host, "POST", `/v1/webhooks/endpoints/${e.json.id}/test`, { headers: key }).catch(() => undefined)
    )
  )
  await sleep(500 + Math.random() * 1500)
  await host.kill()
  await leaseLog.afterKill(db, partnerIds, kill)
  await sends
  host = await spawnHost(ENV, { dataDir: host.dataDir })
}
// Every lease of the killed hosts runs out; what went back to pending is sent again.
await call(host, "POST", "/admin/v1/sandbox/clock/advance", {
  headers: { authorization: `Bearer ${host.adminToken}` },
  body: { seconds: 61 }
})
const count = async (statuses: ReadonlyArray<string>) =>
  Number(
    (
      await db.query(`SELECT count(*) AS n FROM webhook_deliveries WHERE partner_id = ANY($1) AND status = ANY($2)`, [
        partnerIds,
        statuses
      ])
    ).rows[0]?.n
  )
for (let i = 0; i < 60 && (await count(["pending", "delivering"])) > 0; i++) await sleep(1000)
const uncertain = (
  await db.query<{ id: string; event_id: string }>(
    `SELECT id::text, event_id::text FROM webhook_deliveries WHERE partner_id = ANY($1) AND status = 'uncertain'`,
    [partnerIds]
  )
).rows.map((r) => ({ id: r.id, eventId: r.event_id }))
const report = leaseLog.report(uncertain, receiver.started)
console.log(
  `${kills} SIGKILLs, bursts of ${burst}: ${await count(["delivered"])} delivered, ${report.uncertain} uncertain, ${await count(["pending", "delivering"])} still pending or delivering, ${((performance.now() - began) / 1000).toFixed(0)} s`
)
console.log(describeLeases(report))
const violations = uncertainViolations(report)
for (const v of violations) console.error(`  ${v}`)
await host.stop()
await db.end()
await receiver.close()
process.exit(violations.length === 0 ? 0 : 1)
