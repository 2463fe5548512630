/**
 * bench/ledger — reserve+confirm through the engine (`Ledger` on `SqlLedgerStore`, PostgreSQL, the
 * confirm's `billing.settled` event written to the SQL outbox in its transaction) against a baseline
 * that sends the SAME SQL statements with plain `pg` (same round trips, same transaction per
 * operation), measured in the same run:
 *   (a) one reserver, sequential pairs;  (b) 32 concurrent reservers on ONE account.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=@frank/source --import tsx bench/ledger.ts
 *
 * Both sides work in one fresh schema (dropped at the end). Before measuring, the statements one
 * engine pair sends are captured and compared with the baseline's. Each scenario runs ROUNDS
 * round pairs, baseline and engine back to back (order alternating), each round bounded in pairs
 * and in seconds. The machine is shared and its load drifts, so a round pair is compared with
 * itself: the reported ratio is the median of the per-pair ratios, next to the median ops/s of
 * each side. One op = one reserve or one confirm transaction. Target: ratio ≥ 0.7.
 *
 * Then the engine against itself (issue 32): an account holding 10 live bonus grants (each
 * reservation draws from them, each settlement writes the grant back) against one holding none,
 * same round-pair method. Target: ratio ≥ 0.8.
 *
 * Then the audit write (issue 33): `Ledger.credit` alone against the same credit with its
 * `credit.added` record appended in one transaction, as the admin API's credit does it
 * (`AuditLog.atomically` + `record`, the admin origin set on the fiber). One op = one credit; a
 * round is bounded at 2 × BENCH_PAIRS credits or BENCH_ROUND_SECONDS. Target: audited/plain ≥ 0.9.
 *
 * ONLY=pg,grants,audit runs a subset (default: all): `pg` the engine against plain pg (a, b),
 * `grants` the live grants (c, d), `audit` the audit write (e, f). BENCH_ROUNDS (5), BENCH_PAIRS
 * (600) and BENCH_ROUND_SECONDS (5) override the round bounds, e.g. a quick check:
 *
 *   ONLY=audit BENCH_ROUNDS=1 BENCH_PAIRS=50 DATABASE_URL=… node --conditions=@frank/source --import tsx bench/ledger.ts
 */
import { randomUUID } from "node:crypto"
import { SqlClient, Statement } from "@effect/sql"
import {
  SqlAuditStore,
  SqlWebhookStore,
  TestDatabase,
  WEBHOOK_NOTIFY_CHANNEL_SUFFIX,
  WEBHOOK_NOTIFY_PAYLOAD
} from "@frank/adapters"
import { Audit, Events, Ids, Ledger, Money } from "@frank/core"
import { Clock, type Context, Effect, Layer } from "effect"
import pg from "pg"
import { testPartner, testTask } from "@frank/core/testing"

const url = process.env.DATABASE_URL ?? ""
if (url.length === 0) {
  console.log("bench/ledger: DATABASE_URL is not set; it needs a PostgreSQL server. Nothing measured.")
  process.exit(0)
}

const WARMUP_PAIRS = 200
/** Round pairs per scenario. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
/** Reserve+confirm pairs per round (2 ops each). */
const PAIRS_PER_ROUND = Number(process.env.BENCH_PAIRS ?? 600)
const CONCURRENCY = 32
/** Pool size of both sides. */
const POOL = 32
/** Upper bound of one round, whatever the pair count. */
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5)
const RESERVE = 1_000
const CHARGE = 700
const CREDIT = 1_000
const PARTS = ["pg", "grants", "audit"]
/** The parts to run (ONLY=pg,grants,audit; default all). */
const ONLY = new Set((process.env.ONLY ?? PARTS.join(",")).split(","))
const unknownParts = [...ONLY].filter((p) => !PARTS.includes(p))
if (unknownParts.length > 0) {
  console.error(`bench/ledger: ONLY takes ${PARTS.join(",")}; unknown: ${unknownParts.join(",")}`)
  process.exit(2)
}

// ---------------------------------------------------------------------------------------------
// Baseline: the engine's statements, written out by hand against node-postgres.

const SQL = {
  lockAccount:
    "SELECT total_minor, used_minor, reserved_minor, entry_count, topup_count, reservation_count, confirm_count, refund_count, debit_count, bonus_reversal_count, last_entry_at FROM ledger_accounts WHERE partner_id = $1 FOR UPDATE",
  lockHold:
    "SELECT partner_id, task_id, status, reserved_minor, charged_minor, released_minor, reservation_entry_id, settlement_entry_id, created_at, expires_at, settled_at, grant_draws AS draws FROM ledger_holds WHERE partner_id = $1 AND task_id = $2 FOR UPDATE",
  liveGrants:
    "SELECT partner_id, id, granted_minor, remaining_minor, reserved_minor, priority, expires_at, created_at, expired_at FROM ledger_credit_grants WHERE partner_id = $1 AND remaining_minor > 0 ORDER BY created_at, id",
  insertEntries: (rows: number) =>
    `INSERT INTO ledger_entries ("account_seq","type_seq","partner_id","id","type","kind","amount_minor","unit_price_micros","task_id","attribution","reference","label","description","occurred_at") VALUES ${Array.from(
      { length: rows },
      (_, r) => `(${Array.from({ length: 14 }, (_, c) => `$${r * 14 + c + 1}`).join(",")})`
    ).join(",")}`,
  upsertHold:
    'INSERT INTO ledger_holds ("partner_id","task_id","status","reserved_minor","charged_minor","released_minor","reservation_entry_id","settlement_entry_id","created_at","expires_at","settled_at","grant_draws") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12) ON CONFLICT (partner_id, task_id) DO UPDATE SET status = EXCLUDED.status, charged_minor = EXCLUDED.charged_minor, released_minor = EXCLUDED.released_minor, settlement_entry_id = EXCLUDED.settlement_entry_id, settled_at = EXCLUDED.settled_at',
  // The totals and the counts reads use (migration 0027): entries, then one count per type.
  updateAccount:
    "UPDATE ledger_accounts SET total_minor = $1, used_minor = $2, reserved_minor = $3, entry_count = $4, topup_count = $5, reservation_count = $6, confirm_count = $7, refund_count = $8, debit_count = $9, bonus_reversal_count = $10, last_entry_at = $11 WHERE partner_id = $12",
  // A confirm adds its charge to the day's usage.
  addUsage:
    'INSERT INTO ledger_usage_days ("partner_id","day_start_ms","spent_minor") VALUES ($1,$2,$3) ON CONFLICT (partner_id, day_start_ms) DO UPDATE SET spent_minor = ledger_usage_days.spent_minor + EXCLUDED.spent_minor',
  // Every movement moves the partner's balance alerts (none here) in its transaction.
  settleAlerts: `UPDATE ledger_balance_alerts
      SET state = CASE WHEN $1 < threshold_minor THEN 'triggered' ELSE 'ok' END, crossings = crossings + 1
      WHERE partner_id = $2
        AND state <> CASE WHEN $3 < threshold_minor THEN 'triggered' ELSE 'ok' END
      RETURNING partner_id, id, threshold_minor, state, created_at, crossings`,
  // The outbox's write of the confirm's `billing.settled` event (SqlWebhookStore.appendEvent).
  appendEvent: `WITH ev AS (
      INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload) VALUES ($1, $2::uuid, $3, $4, $5)
      ON CONFLICT (partner_id, id) DO NOTHING RETURNING partner_id, id, type
    ), d AS (
      INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
      SELECT ev.partner_id, gen_random_uuid(), e.id, ev.id, ev.type, 'pending', 0, $6, $7, $8
      FROM ev JOIN webhook_endpoints e ON e.partner_id = ev.partner_id
      WHERE e.deleted_at IS NULL AND e.active AND (e.event_types IS NULL OR ev.type = ANY (e.event_types))
      FOR KEY SHARE OF e RETURNING 1
    )
    SELECT (SELECT count(*) FROM d)::int AS n,
      (SELECT count(*) FROM (SELECT pg_notify(current_schema() || $9, $10) FROM (SELECT 1 FROM d LIMIT 1) one) sent)::int AS notified`
}

interface Baseline {
  readonly reserve: (partnerId: Ids.PartnerId, taskId: string, now: number) => Promise<void>
  readonly confirm: (partnerId: Ids.PartnerId, taskId: string, now: number) => Promise<void>
  /** Statement texts sent so far, when recording (BEGIN/COMMIT excluded, as on the engine side). */
  readonly recorded: Array<string>
  recording: boolean
}

/** The account row's counts (migration 0027) as the engine reads them under the lock. */
interface Counts {
  readonly entries: number
  readonly topup: number
  readonly reservation: number
  readonly confirm: number
  readonly refund: number
  readonly debit: number
  readonly reversal: number
  readonly lastAt: number | null
}

const counts = (row: Record<string, unknown>): Counts => ({
  entries: Number(row.entry_count),
  topup: Number(row.topup_count),
  reservation: Number(row.reservation_count),
  confirm: Number(row.confirm_count),
  refund: Number(row.refund_count),
  debit: Number(row.debit_count),
  reversal: Number(row.bonus_reversal_count),
  lastAt: row.last_entry_at === null ? null : Number(row.last_entry_at)
})

/** updateAccount's count parameters, in its column order. */
const countColumns = (n: Counts, now: number) => [
  n.entries,
  n.topup,
  n.reservation,
  n.confirm,
  n.refund,
  n.debit,
  n.reversal,
  Math.max(now, n.lastAt ?? now)
]

const makeBaseline = (pool: pg.Pool): Baseline => {
  const self: Baseline = {
    recorded: [],
    recording: false,
    reserve: (partnerId, taskId, now) =>
      tx(async (q) => {
        const account = (await q(SQL.lockAccount, [partnerId])).rows[0]
        await q(SQL.lockHold, [partnerId, taskId])
        await q(SQL.liveGrants, [partnerId])
        const id = randomUUID()
        const n = counts(account)
        await q(SQL.insertEntries(1), [
          n.entries + 1,
          n.reservation + 1,
          ...entry(partnerId, id, "reservation", "task_hold", RESERVE, taskId, now)
        ])
        await q(SQL.upsertHold, [
          partnerId,
          taskId,
          "open",
          RESERVE,
          0,
          0,
          id,
          null,
          now,
          now + HOLD_TTL_MS,
          null,
          "[]"
        ])
        const available =
          Number(account.total_minor) - Number(account.used_minor) - Number(account.reserved_minor) - RESERVE
        await q(SQL.updateAccount, [
          Number(account.total_minor),
          Number(account.used_minor),
          Number(account.reserved_minor) + RESERVE,
          ...countColumns({ ...n, entries: n.entries + 1, reservation: n.reservation + 1 }, now),
          partnerId
        ])
        await q(SQL.settleAlerts, [available, partnerId, available])
      }),
    confirm: (partnerId, taskId, now) =>
      tx(async (q) => {
        const account = (await q(SQL.lockAccount, [partnerId])).rows[0]
        const hold = (await q(SQL.lockHold, [partnerId, taskId])).rows[0]
        await q(SQL.liveGrants, [partnerId])
        const charge = randomUUID()
        const n = counts(account)
        await q(SQL.insertEntries(2), [
          n.entries + 1,
          n.confirm + 1,
          ...entry(partnerId, charge, "confirm", "task_charge", CHARGE, taskId, now),
          n.entries + 2,
          n.refund + 1,
          ...entry(partnerId, randomUUID(), "refund", "task_release", RESERVE - CHARGE, taskId, now)
        ])
        await q(SQL.upsertHold, [
          partnerId,
          taskId,
          "confirmed",
          RESERVE,
          CHARGE,
          RESERVE - CHARGE,
          hold.reservation_entry_id,
          charge,
          Number(hold.created_at),
          Number(hold.expires_at),
          now,
          "[]"
        ])
        await q(SQL.updateAccount, [
          Number(account.total_minor),
          Number(account.used_minor) + CHARGE,
          Number(account.reserved_minor) - RESERVE,
          ...countColumns({ ...n, entries: n.entries + 2, confirm: n.confirm + 1, refund: n.refund + 1 }, now),
          partnerId
        ])
        await q(SQL.addUsage, [partnerId, Math.floor(now / 86_400_000) * 86_400_000, CHARGE])
        await q(SQL.appendEvent, settledEvent(partnerId, taskId, charge, now))
        const available =
          Number(account.total_minor) - Number(account.used_minor) - CHARGE - (Number(account.reserved_minor) - RESERVE)
        await q(SQL.settleAlerts, [available, partnerId, available])
      })
  }
  const entry = (
    partnerId: Ids.PartnerId,
    id: string,
    type: string,
    kind: string,
    amount: number,
    taskId: string,
    now: number
  ) => [partnerId, id, type, kind, amount, null, taskId, null, null, kind, `task ${taskId}`, now]
  /** The parameters the outbox sends for `billing.settled`, built by the engine's own pure helpers. */
  const settledEvent = (partnerId: Ids.PartnerId, taskId: string, transactionId: string, now: number) => {
    const head = {
      partnerId,
      id: Events.sourceEventId(partnerId, "billing.settled", transactionId),
      type: "billing.settled" as const,
      occurredAt: now
    }
    const data = { transactionId, taskId, amountFranks: Money.minorToFranks(CHARGE) }
    return [
      partnerId,
      head.id,
      head.type,
      now,
      Events.encodeEnvelope(head, data),
      now,
      now,
      now,
      WEBHOOK_NOTIFY_CHANNEL_SUFFIX,
      WEBHOOK_NOTIFY_PAYLOAD
    ]
  }
  const tx = async (body: (q: (text: string, params: Array<unknown>) => Promise<pg.QueryResult>) => Promise<void>) => {
    const client = await pool.connect()
    const q = (text: string, params: Array<unknown>) => {
      if (self.recording) self.recorded.push(text)
      return client.query(text, params)
    }
    try {
      await client.query("BEGIN")
      await body(q)
      await client.query("COMMIT")
    } catch (e) {
      await client.query("ROLLBACK")
      throw e
    } finally {
      client.release()
    }
  }
  return self
}

// ---------------------------------------------------------------------------------------------
// Rounds

interface Round {
  readonly opsPerSecond: number
  readonly ops: number
  /** CPU time of this process per op (user + system), µs: the client-side cost of each side. */
  readonly cpuMicrosPerOp: number
}

interface Start {
  readonly ms: number
  readonly cpu: NodeJS.CpuUsage
}

const start = (): Start => ({ ms: performance.now(), cpu: process.cpuUsage() })

/** The round's rate from the ops it completed since `started`. */
const rate = (ops: number, started: Start): Round => {
  const cpu = process.cpuUsage(started.cpu)
  return {
    ops,
    opsPerSecond: ops / ((performance.now() - started.ms) / 1000),
    cpuMicrosPerOp: (cpu.user + cpu.system) / Math.max(ops, 1)
  }
}

/** Live bonus grants on a grant-holding account, each large enough for every round. */
const GRANTS = 10
/** The engine's default hold lifetime (a day), which the plain-pg side writes as the engine does. */
const HOLD_TTL_MS = 86_400_000

const newAccount = (side: string, grants = 0) =>
  Effect.gen(function* () {
    const partnerId = testPartner(`bench-${side}-${randomUUID()}`)
    const ledger = yield* Ledger.Ledger
    yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 1_000_000_000 })
    const now = yield* Clock.currentTimeMillis
    for (let i = 0; i < grants; i++)
      yield* ledger.credit(partnerId, {
        kind: "bonus",
        amountMinor: 100_000_000,
        grant: { expiresAt: now + (30 + i) * 86_400_000, priority: 40 + i }
      })
    return partnerId
  })

/** `workers` fibers take pair indexes until `pairs` are done or the round's time is up. */
const enginePairs = (partnerId: Ids.PartnerId, pairs: number, workers: number) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    let next = 0
    let done = 0
    const started = start()
    const deadline = started.ms + ROUND_SECONDS * 1000
    const worker = Effect.gen(function* () {
      while (next < pairs && performance.now() < deadline) {
        const taskId = `t${next++}`
        yield* ledger.reserve(partnerId, { taskId: testTask(taskId), amountMinor: RESERVE })
        yield* ledger.confirm(partnerId, { taskId: testTask(taskId), amountMinor: CHARGE })
        done++
      }
    })
    yield* Effect.all(
      Array.from({ length: workers }, () => worker),
      { concurrency: "unbounded", discard: true }
    )
    return rate(done * 2, started)
  })

const engineRound = (pairs: number, workers: number, grants = 0) =>
  Effect.flatMap(newAccount("engine", grants), (partnerId) => enginePairs(partnerId, pairs, workers))

const baselineRound = (baseline: Baseline, pairs: number, workers: number) =>
  Effect.gen(function* () {
    const partnerId = yield* newAccount("baseline")
    // Timestamps are parameters like on the engine side; a round reads the Clock once.
    const now = yield* Clock.currentTimeMillis
    let next = 0
    let done = 0
    const started = start()
    const deadline = started.ms + ROUND_SECONDS * 1000
    const worker = async () => {
      while (next < pairs && performance.now() < deadline) {
        const i = next++
        await baseline.reserve(partnerId, `t${i}`, now + i)
        await baseline.confirm(partnerId, `t${i}`, now + i)
        done++
      }
    }
    yield* Effect.promise(() => Promise.all(Array.from({ length: workers }, worker)))
    return rate(done * 2, started)
  })

/** Statement texts of one engine pair and one baseline pair, whitespace-normalized. */
const compareStatements = (baseline: Baseline) =>
  Effect.gen(function* () {
    const engineTexts: Array<string> = []
    const capture: Statement.Statement.Transformer = (statement) =>
      Effect.sync(() => {
        engineTexts.push(statement.compile()[0])
        return statement
      })
    const partnerId = yield* newAccount("engine")
    yield* enginePairs(partnerId, 1, 1).pipe(Statement.withTransformer(capture))
    baseline.recording = true
    yield* baselineRound(baseline, 1, 1)
    baseline.recording = false
    const norm = (t: string) => t.replace(/\s+/g, " ").trim()
    const enginePair = engineTexts.map(norm)
    const same =
      enginePair.length === baseline.recorded.length &&
      enginePair.every((t, i) => t === norm(baseline.recorded[i] ?? ""))
    if (!same) {
      console.error("bench/ledger: the baseline does not send the engine's statements; fix SQL in bench/ledger.ts")
      console.error({ engine: enginePair, baseline: baseline.recorded.map(norm) })
      return yield* Effect.die("statement mismatch")
    }
    return enginePair.length
  })

/** The admin API's origin (AdminHandlers' `attributeToAdmin`): the operator, from one request. */
const adminOrigin = (requestId: string): Audit.AuditOrigin => ({
  actor: { type: "admin", id: "admin", label: "FRANK_ADMIN_TOKEN" },
  requestId,
  ip: "127.0.0.1",
  idempotencyKey: null
})

/**
 * One top-up credit; `audited`: as the admin API's `addCredit` runs it — the edge sets the
 * origin, then `Audit.AuditedLedger` writes the `credit.added` record inside the credit's own
 * transaction (alongside the movement, no enclosing transaction).
 */
const creditOnce = (
  ledger: Context.Tag.Service<typeof Ledger.Ledger>,
  partnerId: Ids.PartnerId,
  audited: boolean,
  requestId: string
) =>
  Effect.zipRight(
    audited ? Audit.setAuditOrigin(adminOrigin(requestId)) : Effect.void,
    ledger.credit(partnerId, { kind: "topup", amountMinor: CREDIT })
  )

/** The ledger a credit goes through: the engine's, or the same wrapped by `Audit.AuditedLedger`. */
const ledgerFor = (audited: boolean) =>
  audited ? Ledger.Ledger.pipe(Effect.provide(Audit.AuditedLedger)) : Ledger.Ledger

/** `workers` fibers credit one fresh account until `credits` are done or the round's time is up. */
const creditRound = (credits: number, workers: number, audited: boolean) =>
  Effect.gen(function* () {
    const partnerId = yield* newAccount(audited ? "audited" : "plain")
    const ledger = yield* ledgerFor(audited)
    let next = 0
    let done = 0
    const started = start()
    const deadline = started.ms + ROUND_SECONDS * 1000
    const worker = Effect.gen(function* () {
      while (next < credits && performance.now() < deadline) {
        yield* creditOnce(ledger, partnerId, audited, `bench-${next++}`)
        done++
      }
    })
    yield* Effect.all(
      Array.from({ length: workers }, () => worker),
      { concurrency: "unbounded", discard: true }
    )
    return rate(done, started)
  })

/** Statements one plain and one audited credit send (transaction control not included). */
const creditStatements = Effect.gen(function* () {
  const partnerId = yield* newAccount("statements")
  const count = (audited: boolean) =>
    Effect.gen(function* () {
      let n = 0
      const capture: Statement.Statement.Transformer = (statement) =>
        Effect.sync(() => {
          n++
          return statement
        })
      const ledger = yield* ledgerFor(audited)
      yield* creditOnce(ledger, partnerId, audited, "bench-statements").pipe(Statement.withTransformer(capture))
      return n
    })
  return { plain: yield* count(false), audited: yield* count(true) }
})

/** ROUNDS round pairs of `base` and `engine` back to back, alternating which goes first. */
const roundPairs = <E, R>(base: Effect.Effect<Round, E, R>, engine: Effect.Effect<Round, E, R>) =>
  Effect.gen(function* () {
    const engineRounds: Array<Round> = []
    const baseRounds: Array<Round> = []
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which side goes first, so a drift in load favours neither.
      if (r % 2 === 0) {
        baseRounds.push(yield* base)
        engineRounds.push(yield* engine)
      } else {
        engineRounds.push(yield* engine)
        baseRounds.push(yield* base)
      }
    }
    return { engine: engineRounds, base: baseRounds }
  })

type Rows = Array<{ label: string; engine: ReadonlyArray<Round>; base: ReadonlyArray<Round> }>

/** The baseline on its own pool in the engine's fresh schema, checked to send the engine's statements. */
const pgBaseline = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const schema = (yield* sql<{ schema: string }>`SELECT current_schema() AS schema`)[0]?.schema ?? "public"
  const pool = new pg.Pool({ connectionString: TestDatabase.withSearchPath(url, schema), max: POOL })
  yield* Effect.addFinalizer(() => Effect.promise(() => pool.end()))
  const baseline = makeBaseline(pool)
  return { baseline, statementsPerPair: yield* compareStatements(baseline) }
})

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

const program = Effect.gen(function* () {
  const pgSide = ONLY.has("pg") ? yield* pgBaseline : undefined
  const auditStatements = ONLY.has("audit") ? yield* creditStatements : undefined

  // Warm-up of the measured paths (JIT, connection pools, plan caches).
  yield* engineRound(WARMUP_PAIRS, 4)
  if (pgSide !== undefined) yield* baselineRound(pgSide.baseline, WARMUP_PAIRS, 4)
  if (auditStatements !== undefined) {
    yield* creditRound(WARMUP_PAIRS * 2, 4, false)
    yield* creditRound(WARMUP_PAIRS * 2, 4, true)
  }

  const rows: Rows = []
  if (pgSide !== undefined)
    for (const [label, workers] of [
      ["(a) sequential, 1 reserver", 1],
      [`(b) ${CONCURRENCY} concurrent reservers, one account`, CONCURRENCY]
    ] as const) {
      const base = baselineRound(pgSide.baseline, PAIRS_PER_ROUND, workers)
      rows.push({ label, ...(yield* roundPairs(base, engineRound(PAIRS_PER_ROUND, workers))) })
    }
  // The engine with 10 live grants ("engine") against the engine with none ("base").
  const grantRows: Rows = []
  if (ONLY.has("grants"))
    for (const [label, workers] of [
      [`(c) sequential, 1 reserver: ${GRANTS} live grants vs none`, 1],
      [`(d) ${CONCURRENCY} concurrent reservers: ${GRANTS} live grants vs none`, CONCURRENCY]
    ] as const) {
      const base = engineRound(PAIRS_PER_ROUND, workers)
      grantRows.push({ label, ...(yield* roundPairs(base, engineRound(PAIRS_PER_ROUND, workers, GRANTS))) })
    }
  // The credit with its audit record ("engine") against the credit alone ("base").
  const auditRows: Rows = []
  if (auditStatements !== undefined)
    for (const [label, workers] of [
      ["(e) sequential, 1 crediter", 1],
      [`(f) ${CONCURRENCY} concurrent crediters, one account`, CONCURRENCY]
    ] as const) {
      const base = creditRound(PAIRS_PER_ROUND * 2, workers, false)
      auditRows.push({ label, ...(yield* roundPairs(base, creditRound(PAIRS_PER_ROUND * 2, workers, true))) })
    }

  if (pgSide !== undefined) printPg(pgSide.statementsPerPair, rows)
  if (grantRows.length > 0) printGrants(grantRows)
  if (auditStatements !== undefined) printAudit(auditStatements, auditRows)
})

const printPg = (statementsPerPair: number, rows: Rows) => {
  console.log("\nbench/ledger — reserve+confirm on PostgreSQL; 1 op = one reserve or confirm transaction")
  console.log(
    `statements per pair: ${statementsPerPair} on both sides (+ BEGIN/COMMIT per op); ${ROUNDS} round pairs per scenario, ≤ ${PAIRS_PER_ROUND} pairs or ${ROUND_SECONDS} s per round\n`
  )
  console.log(
    "| scenario | engine ops/s | plain pg ops/s | ratio engine/baseline (min–max) | client CPU µs/op (engine / baseline) | ops (engine / baseline) |"
  )
  console.log("|---|---:|---:|---:|---:|---:|")
  printRows(rows, median)
}

const printGrants = (rows: Rows) => {
  console.log(
    `\n| scenario | ${GRANTS} grants ops/s | no grants ops/s | ratio grants/none (min–max) | client CPU µs/op (grants / none) | ops (grants / none) |`
  )
  console.log("|---|---:|---:|---:|---:|---:|")
  printRows(rows, median)
}

const printAudit = (statements: { plain: number; audited: number }, rows: Rows) => {
  console.log("\nbench/ledger — the audit write on the credit path (issue 33); 1 op = one top-up credit transaction")
  console.log(
    `statements per credit: ${statements.plain} plain, ${statements.audited} audited (+ BEGIN/COMMIT); ${ROUNDS} round pairs per scenario, ≤ ${PAIRS_PER_ROUND * 2} credits or ${ROUND_SECONDS} s per round; target ratio ≥ 0.9\n`
  )
  console.log(
    "| scenario | audited ops/s | plain ops/s | ratio audited/plain (min–max) | client CPU µs/op (audited / plain) | ops (audited / plain) |"
  )
  console.log("|---|---:|---:|---:|---:|---:|")
  printRows(rows, median)
}

const printRows = (rows: Rows, median: (xs: ReadonlyArray<number>) => number) => {
  for (const { label, engine, base } of rows) {
    const ratios = engine.map((e, i) => e.opsPerSecond / (base[i]?.opsPerSecond ?? Number.NaN))
    const ops = (xs: ReadonlyArray<Round>) => xs.reduce((n, x) => n + x.ops, 0)
    console.log(
      `| ${label} | ${median(engine.map((e) => e.opsPerSecond)).toFixed(0)} | ${median(base.map((b) => b.opsPerSecond)).toFixed(0)} | ` +
        `**${median(ratios).toFixed(2)}** (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ` +
        `${median(engine.map((e) => e.cpuMicrosPerOp)).toFixed(0)} / ${median(base.map((b) => b.cpuMicrosPerOp)).toFixed(0)} | ${ops(engine)} / ${ops(base)} |`
    )
  }
}

// Events of the movements go to the SQL outbox in the same transaction, as in the host.
// The audit log sits above the outbox it wakes after a commit, as in the host (packages/host/src/engine.ts).
const Engine = Layer.mergeAll(Ledger.Ledger.layer, Audit.AuditLog.layer).pipe(
  Layer.provideMerge(
    Events.Outbox.layerWithWakeup.pipe(Layer.provideMerge(Layer.mergeAll(SqlWebhookStore.layer, SqlAuditStore.layer)))
  ),
  Layer.provideMerge(TestDatabase.layerPostgresWithLedger(url, { maxConnections: POOL })),
  Layer.provideMerge(Ids.Ids.layer)
)

// Spans off, as the reference host runs the engine (packages/host/src/main.ts): with no exporter
// they are pure per-statement overhead.
Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(Engine), Effect.withTracerEnabled(false))).then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)
