/**
 * A deleted rate-limited endpoint takes its rate row with it (migration 0029's
 * `webhook_endpoint_rates`): left behind, the row would keep every claim of the database off the
 * statement it runs while no endpoint is limited. Checked for both ways a deletion runs (two
 * steps, and inside a caller's transaction), and for migration 0030, which removes the rows
 * earlier deletions left. On PGlite, and on PostgreSQL when DATABASE_URL is set.
 */
import { SqlClient } from "@effect/sql"
import { SqlLedgerStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Access, Events, Ids, Ledger, Webhooks } from "@frank/core"
import { testPartner } from "@frank/core/testing"
import { expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { DeliveryQueue } from "@frank/core/stores"

const migration0030 = new URL(
  "../packages/adapters/migrations/0030_webhook_rates_of_deleted_endpoints.sql",
  import.meta.url
)

const engines: Array<[string, () => Layer.Layer<TestDatabase.TestDatabase, unknown>]> = [
  ["PGlite", () => TestDatabase.layerPglite()]
]
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) engines.push(["PostgreSQL", () => TestDatabase.layerPostgres(url)])

/** The partner's rate rows, by endpoint id. */
const rateRows = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ endpointId: string }>`SELECT endpoint_id::text AS endpoint_id FROM webhook_endpoint_rates
      WHERE partner_id = ${partnerId} ORDER BY endpoint_id`,
      (rows) => rows.map((r) => r.endpointId)
    )
  )

/** A partner with two endpoints at 5/s, three deliveries each, claimed once (grants recorded, the rest deferred). */
const twoLimited = Effect.gen(function* () {
  const webhooks = yield* Webhooks.Webhooks
  const queue = yield* DeliveryQueue
  const partnerId = testPartner(`p_${randomUUID()}`)
  const gone = yield* webhooks.createEndpoint(partnerId, { url: "https://gone.example/hook", rateLimitPerSecond: 5 })
  const kept = yield* webhooks.createEndpoint(partnerId, { url: "https://kept.example/hook", rateLimitPerSecond: 5 })
  for (let i = 0; i < 3; i++) {
    yield* webhooks.sendTest(partnerId, gone.id)
    yield* webhooks.sendTest(partnerId, kept.id)
  }
  const now = yield* Clock.currentTimeMillis
  yield* queue.claimDue(now + 1, 60_000, 100, `rate-${randomUUID()}`)
  expect(yield* rateRows(partnerId)).toEqual([gone.id, kept.id].sort())
  return { partnerId, gone, kept }
})

for (const [engine, database] of engines) {
  const Engine = Layer.mergeAll(Ledger.Ledger.layer, Webhooks.Webhooks.layer).pipe(
    Layer.provideMerge(Events.Outbox.layerWithWakeup),
    Layer.provideMerge(Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer)),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Ids.layer,
        Access.Secrets.layer(Redacted.make("pepper")),
        Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true }),
        Layer.succeed(Events.EventAnnouncer, { announce: Effect.void })
      )
    ),
    Layer.provideMerge(database())
  )

  layer(Engine, { timeout: 120_000, excludeTestServices: true })(`rate rows of deleted endpoints (${engine})`, (it) => {
    it.effect("deleting a limited endpoint removes its rate row and leaves the others'", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const { partnerId, gone, kept } = yield* twoLimited
        yield* webhooks.deleteEndpoint(partnerId, gone.id)
        expect(yield* rateRows(partnerId)).toEqual([kept.id])
      })
    )

    it.effect("a deletion inside the caller's transaction removes it with the rest", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const sql = yield* SqlClient.SqlClient
        const { partnerId, gone, kept } = yield* twoLimited
        yield* sql.withTransaction(webhooks.deleteEndpoint(partnerId, gone.id))
        expect(yield* rateRows(partnerId)).toEqual([kept.id])
      })
    )

    it.effect("migration 0030 removes the rate rows earlier deletions left, and only those", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { partnerId, gone, kept } = yield* twoLimited
        // A deletion as it ran before this change: the endpoint marked deleted, its rate row left.
        yield* sql`UPDATE webhook_endpoints SET deleted_at = 1, active = false WHERE partner_id = ${partnerId} AND id = ${gone.id}::uuid`
        // The file's own text, run again: later migrations keep the migrator from re-running it.
        yield* sql.unsafe(readFileSync(migration0030, "utf8"))
        expect(yield* rateRows(partnerId)).toEqual([kept.id])
      })
    )
  })
}
