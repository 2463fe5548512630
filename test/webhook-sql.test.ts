/**
 * Webhook behaviour only SQL stores have: the outbox commits and rolls back with the business
 * transaction, and several workers (host instances) share one database without ever sending
 * the same attempt twice. Live clock and real concurrency.
 */
import { SqlClient } from "@effect/sql"
import { pgliteTestDatabase, postgresTestDatabase, SqlLedgerStore, SqlWebhookStore, type TestDatabase } from "@frank/adapters"
import {
  DeliveryWorker,
  Ids,
  Ledger,
  Outbox,
  Secrets,
  type AttemptRequest,
  WebhookSettings,
  Webhooks,
  WebhookTransport
} from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Redacted, Ref } from "effect"
import { randomUUID } from "node:crypto"

const engines: Array<[string, () => Layer.Layer<TestDatabase, unknown>]> = [["PGlite", () => pgliteTestDatabase()]]
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) engines.push(["PostgreSQL", () => postgresTestDatabase(url, { maxConnections: 10 })])

/** A receiver that records every request's event id and answers 200 after a short random pause. */
class Recorded extends Context.Tag("test/Recorded")<Recorded, Ref.Ref<ReadonlyArray<string>>>() {}
const RecordingTransport = Layer.effectContext(
  Effect.gen(function* () {
    const log = yield* Ref.make<ReadonlyArray<string>>([])
    const send = (r: AttemptRequest) =>
      Effect.gen(function* () {
        yield* Ref.update(log, (l) => [...l, r.headers["X-Service-Event-Id"] ?? "?"])
        yield* Effect.sleep(Math.floor(Math.random() * 5))
        return { _tag: "Answered", status: 200 } as const
      })
    return Context.make(Recorded, log).pipe(Context.add(WebhookTransport, { send }))
  })
)

for (const [engine, database] of engines) {
  const Engine = Layer.mergeAll(Ledger.layer, Webhooks.layer).pipe(
    Layer.provideMerge(Outbox.live),
    Layer.provideMerge(Layer.mergeAll(SqlLedgerStore, SqlWebhookStore)),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Live,
        Secrets.layer(Redacted.make("pepper")),
        WebhookSettings.layer({ allowPrivateNetwork: true }),
        RecordingTransport
      )
    ),
    Layer.provideMerge(database())
  )

  layer(Engine, { timeout: 120_000, excludeTestServices: true })(`webhooks on SQL (${engine})`, (it) => {
    it.effect("the outbox rolls back with the enclosing transaction and commits with it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger
        const webhooks = yield* Webhooks
        const partnerId = `p_${randomUUID()}`
        yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/hook" })
        const failed = yield* sql
          .withTransaction(Effect.zipRight(ledger.credit(partnerId, { kind: "topup", amountMinor: 100_000, reference: "pay-rolled-back" }), Effect.fail("business step failed" as const)))
          .pipe(Effect.flip)
        expect(failed).toBe("business step failed")
        const count = (table: string) =>
          Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE partner_id = ${partnerId}`, (r) => r[0]?.n)
        expect(yield* count("ledger_entries")).toBe(0)
        expect(yield* count("webhook_events")).toBe(0)
        expect(yield* count("webhook_deliveries")).toBe(0)
        yield* sql.withTransaction(ledger.credit(partnerId, { kind: "topup", amountMinor: 100_000, reference: "pay-committed" }))
        expect(yield* count("ledger_entries")).toBe(1)
        expect(yield* count("webhook_events")).toBe(1)
        expect(yield* count("webhook_deliveries")).toBe(1)
      })
    )

    it.effect("two workers on one database deliver every attempt exactly once", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks
        const recorded = yield* Recorded
        const sql = yield* SqlClient.SqlClient
        const partnerId = `p_${randomUUID()}`
        const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/two-workers" })
        const EVENTS = 200
        // Two independent workers (own claim tokens, own loops), as two host instances would run.
        const workerLayer = Layer.fresh(DeliveryWorker.layer({ concurrency: 8, batchSize: 8, leaseMs: 60_000, pollIntervalMs: 20, drainMs: 5_000 }))
        const context = yield* Effect.context<never>()
        const workers = yield* Effect.forEach([1, 2], () => Layer.build(workerLayer).pipe(Effect.provide(context)))
        const fibers = yield* Effect.forEach(workers, (ctx) => Effect.fork(Effect.provide(Effect.flatMap(DeliveryWorker, (w) => w.run), ctx)))
        const emitted = yield* Effect.forEach(Array.from({ length: EVENTS }), () => webhooks.sendTest(partnerId, endpoint.id), { concurrency: 4 })
        const ids = new Set(emitted.map((e) => e.event.id))
        const deadline = Date.now() + 60_000
        for (;;) {
          const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId} AND status = 'delivered'`
          if ((row?.n ?? 0) === EVENTS || Date.now() > deadline) break
          yield* Effect.sleep(50)
        }
        yield* Effect.forEach(fibers, Fiber.interrupt)
        const got = (yield* Ref.get(recorded)).filter((id) => ids.has(id))
        expect(got).toHaveLength(EVENTS)
        expect(new Set(got).size).toBe(EVENTS)
        const [attempts] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_attempts WHERE partner_id = ${partnerId}`
        expect(attempts?.n).toBe(EVENTS)
      }).pipe(Effect.scoped)
    )
  })
}
