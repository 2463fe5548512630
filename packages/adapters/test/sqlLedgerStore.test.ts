/**
 * Behaviour of the SQL ledger store that the shared contract suite cannot see: transactions that
 * join an enclosing one, refusals rolled back to their savepoint, the schema's CHECK backstop,
 * keyset pages of the export stream, daily usage computed in SQL against the reference fold, and
 * int8 values that would not survive as JS numbers.
 */
import { OutboxOnMemory, testPartner, testTask } from "@frank/core/testing"
import { SqlClient, Statement } from "@effect/sql"
import { Errors, Ids, Ledger } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Runtime, Stream } from "effect"
import fc from "fast-check"
import { STREAM_PAGE_ROWS, TestDatabase } from "../src/index.js"
import { LedgerStore } from "@frank/core/stores"

const DAY = 86_400_000

const engines: Array<readonly [string, () => Layer.Layer<SqlClient.SqlClient | LedgerStore, unknown>]> = [
  ["PGlite", TestDatabase.layerPgliteWithLedger]
]
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) engines.push(["PostgreSQL", () => TestDatabase.layerPostgresWithLedger(url)])

let partners = 0
const newPartner = (tag: string) => testPartner(`p_${tag}_${++partners}`)

const accountRows = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*) AS n FROM ledger_accounts WHERE partner_id = ${partnerId}`,
      (r) => r[0]?.n
    )
  )

/** Rows written by a rule that takes them as they are (for read-side tests): numbered and counted like any movement. */
interface RawEntry {
  readonly type: Ledger.TransactionType
  readonly kind: string
  readonly amountMinor: number
  readonly taskId: string | null
  readonly occurredAt: number
}

const insertRaw = (partnerId: Ids.PartnerId, rows: ReadonlyArray<RawEntry>) =>
  Effect.flatMap(LedgerStore, (store) =>
    rows.length === 0
      ? Effect.void
      : store.transact({ partnerId }, (snap) =>
          Either.right({
            entries: rows.map((r, i) => ({
              id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
              partnerId,
              type: r.type,
              kind: r.kind as Ledger.LedgerEntry["kind"],
              amountMinor: r.amountMinor,
              unitPriceMicros: null,
              taskId: r.taskId,
              attribution: null,
              reference: null,
              label: "raw",
              description: "raw",
              occurredAt: r.occurredAt
            })),
            hold: undefined,
            grants: [],
            totals: snap.totals,
            result: undefined
          })
        )
  )

for (const [engine, store] of engines) {
  const EngineLayer = Ledger.Ledger.layer.pipe(
    Layer.provideMerge(store()),
    Layer.provideMerge(OutboxOnMemory),
    Layer.provideMerge(Ids.Ids.layer)
  )

  layer(EngineLayer, { timeout: 120_000, excludeTestServices: true })(`SqlLedgerStore on ${engine}`, (it) => {
    it.effect("a movement inside an enclosing transaction rolls back with it, or commits with it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger.Ledger
        const p = newPartner("outer")
        const aborted = yield* Effect.flip(
          sql.withTransaction(
            Effect.zipRight(
              ledger.credit(p, { kind: "topup", amountMinor: 500 }),
              Effect.fail("outer failure" as const)
            )
          )
        )
        expect(aborted).toBe("outer failure")
        expect(yield* ledger.totals(p)).toEqual({ totalMinor: 0, usedMinor: 0, reservedMinor: 0 })
        expect((yield* ledger.listEntries(p, {}, 0, 10)).total).toBe(0)
        expect(yield* accountRows(p)).toBe(0)

        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* ledger.credit(p, { kind: "topup", amountMinor: 500 })
            yield* sql`INSERT INTO ledger_accounts (partner_id) VALUES (${`${p}_neighbour`})`
          })
        )
        expect((yield* ledger.totals(p)).totalMinor).toBe(500)
        expect(yield* accountRows(testPartner(`${p}_neighbour`))).toBe(1)
      })
    )

    it.effect("a refused rule rolls back its savepoint only; the enclosing transaction goes on", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger.Ledger
        const p = newPartner("savepoint")
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* ledger.credit(p, { kind: "topup", amountMinor: 1_000 })
            const refused = yield* Effect.flip(ledger.reserve(p, { taskId: testTask("big"), amountMinor: 2_000 }))
            expect(refused).toBeInstanceOf(Ledger.InsufficientFunds)
            yield* ledger.reserve(p, { taskId: testTask("small"), amountMinor: 400 })
          })
        )
        expect(yield* ledger.totals(p)).toEqual({ totalMinor: 1_000, usedMinor: 0, reservedMinor: 400 })
        expect(yield* ledger.hold(p, testTask("big"))).toBeUndefined()
        expect((yield* ledger.hold(p, testTask("small")))?.status).toBe("open")
      })
    )

    it.effect("a refusal on a partner's first movement leaves no account row behind", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner("refused")
        expect(yield* Effect.flip(ledger.reserve(p, { taskId: testTask("t"), amountMinor: 1 }))).toBeInstanceOf(
          Ledger.InsufficientFunds
        )
        expect(yield* accountRows(p)).toBe(0)
      })
    )

    it.effect("totals that break the account CHECK are a StoreError naming the invariant; nothing is written", () =>
      Effect.gen(function* () {
        const store = yield* LedgerStore
        const p = newPartner("check")
        // A deliberately wrong rule: it holds 100 on an empty account, bypassing the rules' own check.
        const error = yield* Effect.flip(
          store.transact({ partnerId: p }, (snap) =>
            Either.right({
              entries: [
                {
                  id: "00000000-0000-4000-8000-000000000001",
                  partnerId: snap.partnerId,
                  type: "reservation" as const,
                  kind: "task_hold" as const,
                  amountMinor: 100,
                  unitPriceMicros: null,
                  taskId: "t",
                  attribution: null,
                  reference: null,
                  label: "bug",
                  description: "bug",
                  occurredAt: 0
                }
              ],
              hold: undefined,
              grants: [],
              totals: { ...snap.totals, reservedMinor: 100 },
              result: "written"
            })
          )
        )
        expect(error).toBeInstanceOf(Errors.StoreError)
        expect(error.message).toMatch(
          /ledger invariant violated for partner .*ledger_accounts_available_nonnegative.*bug/
        )
        expect((yield* store.listEntries(p, {}, 0, 10)).total).toBe(0)
        expect(yield* accountRows(p)).toBe(0)
      })
    )

    it.effect(`the export stream reads range pages of at most ${STREAM_PAGE_ROWS} rows and stops at maxRows`, () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* LedgerStore
        const p = newPartner("stream")
        // 1234 rows, ten per millisecond: ties on occurred_at are broken by seq across page borders.
        const raw = Array.from({ length: 1234 }, (_, i) => ({
          type: "topup" as const,
          kind: "bonus",
          amountMinor: i + 1,
          taskId: null,
          occurredAt: 1_000 + Math.floor(i / 10)
        }))
        yield* insertRaw(p, raw)
        const expected = yield* sql<{
          id: string
        }>`SELECT id FROM ledger_entries WHERE partner_id = ${p} ORDER BY occurred_at DESC, seq DESC`

        // Each page is one range of account_seq: `BETWEEN bottom AND top`, its size top - bottom + 1.
        const pages: Array<number> = []
        const recordPages: Statement.Statement.Transformer = (statement) =>
          Effect.sync(() => {
            const [text, params] = statement.compile()
            if (text.includes("FROM ledger_entries") && text.includes("BETWEEN"))
              pages.push(Number(params[params.length - 1]) - Number(params[params.length - 2]) + 1)
            return statement
          })
        const read = (maxRows: number) =>
          Stream.runCollect(store.streamEntries(p, {}, maxRows)).pipe(
            Statement.withTransformer(recordPages),
            Effect.map(Chunk.toArray)
          )

        const capped = yield* read(1_100)
        expect(capped.map((e) => e.id)).toEqual(expected.slice(0, 1_100).map((r) => r.id))
        expect(pages).toEqual(STREAM_PAGE_ROWS >= 1_100 ? [1_100] : [STREAM_PAGE_ROWS, 1_100 - STREAM_PAGE_ROWS])

        pages.length = 0
        const all = yield* read(5_000)
        expect(all.map((e) => e.id)).toEqual(expected.map((r) => r.id))
        expect(pages.every((n) => n <= STREAM_PAGE_ROWS)).toBe(true)
        expect(pages.reduce((a, b) => a + b, 0)).toBe(1_234)

        expect(yield* read(0)).toEqual([])
      })
    )

    it.effect("daily usage in SQL equals the reference fold over the same rows (property)", () =>
      Effect.gen(function* () {
        const runtime = yield* Effect.runtime<SqlClient.SqlClient | LedgerStore>()
        const kindOf: Record<Ledger.TransactionType, string> = {
          confirm: "task_charge",
          refund: "spend_refund",
          reservation: "task_hold",
          topup: "topup",
          debit: "legacy_debit",
          bonus_reversal: "bonus_reversal"
        }
        const time = fc.oneof(
          fc.integer({ min: -2 * DAY, max: 4 * DAY }),
          fc.constantFrom(-DAY, -1, 0, 1, DAY - 1, DAY, 2 * DAY - 1, 2 * DAY, 3 * DAY)
        )
        const row = fc
          .record({
            type: fc.constantFrom<Ledger.TransactionType>(
              "confirm",
              "refund",
              "reservation",
              "topup",
              "debit",
              "bonus_reversal"
            ),
            withTask: fc.boolean(),
            amountMinor: fc.integer({ min: 1, max: 10_000_000 }),
            zeroConfirm: fc.boolean(),
            occurredAt: time
          })
          .map(
            (r): RawEntry => ({
              type: r.type,
              kind: r.type === "refund" && r.withTask ? "task_release" : kindOf[r.type],
              amountMinor: r.type === "confirm" && r.zeroConfirm ? 0 : r.amountMinor,
              taskId: r.withTask ? "task" : null,
              occurredAt: r.occurredAt
            })
          )
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(row, { maxLength: 40 }), time, time, (rows, a, b) =>
              Runtime.runPromise(runtime)(
                Effect.gen(function* () {
                  const store = yield* LedgerStore
                  const p = newPartner("usage")
                  yield* insertRaw(p, rows)
                  const [from, until] = a <= b ? [a, b] : [b, a]
                  const asEntries = rows.map((r) => ({ ...r, taskId: r.taskId }) as unknown as Ledger.LedgerEntry)
                  expect(yield* store.usageByDay(p, from, until)).toEqual(Ledger.sumUsageByDay(asEntries, from, until))
                })
              )
            ),
            { numRuns: 30 }
          )
        )
      })
    )

    it.effect("an int8 beyond the exact integer range fails the read instead of rounding money", () =>
      Effect.gen(function* () {
        const store = yield* LedgerStore
        const p = newPartner("int8")
        yield* insertRaw(p, [{ type: "topup", kind: "bonus", amountMinor: 1, taskId: null, occurredAt: 0 }])
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE ledger_entries SET amount_minor = 9007199254740993 WHERE partner_id = ${p}`
        const error = yield* Effect.flip(store.listEntries(p, {}, 0, 10))
        expect(error).toBeInstanceOf(Errors.StoreError)
        expect(error.message).toContain("9007199254740993 is outside the exact integer range")
      })
    )
  })
}
