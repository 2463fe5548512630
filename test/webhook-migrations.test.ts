/**
 * Webhook migrations that move existing rows: a database migrated before them, with deliveries
 * in it, reads the same through the store afterwards. On a fresh PGlite database, which can be
 * stopped at any migration (the PostgreSQL test schemas come fully migrated).
 */
import { Migrator, SqlClient } from "@effect/sql"
import { migrationLoader, pgliteLayer, runMigrations, SqlWebhookStore } from "@frank/adapters"
import { WebhookStore } from "@frank/core"
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"

/** Applies the migrations numbered up to `last`, as a database last migrated by an older build. */
const migrateUpTo = (last: number) =>
  Migrator.make({})({ loader: Effect.map(migrationLoader, (all) => all.filter(([id]) => id <= last)), table: "effect_sql_migrations" })

it.live("0012: deliveries made before it keep their listing (order, endpoint filter, cursor) and their purge", () =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* migrateUpTo(11)
    const endpoints = ["00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"]
    for (const id of endpoints)
      yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
        VALUES ('p_old', ${id}::uuid, 'https://receiver.example/hook', NULL, true, 'whsec_x', 0, 0)`
    // Five events, each delivered to both endpoints; the later the event, the newer its deliveries.
    for (let i = 1; i <= 5; i++) {
      const event = `00000000-0000-4000-8000-0000000000e${i}`
      yield* sql`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload) VALUES ('p_old', ${event}::uuid, 'webhook.test', ${i}, '{}')`
      for (const [j, endpoint] of endpoints.entries())
        yield* sql`INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
          VALUES ('p_old', ${`00000000-0000-4000-8000-0000000000${j}${i}`}::uuid, ${endpoint}::uuid, ${event}::uuid, 'webhook.test',
            ${i === 5 ? "pending" : "delivered"}, 1, ${i === 5 ? 1_000 : null}, ${i * 1_000}, ${i * 1_000})`
    }

    yield* runMigrations
    const store = yield* WebhookStore
    const all = yield* store.listDeliveries("p_old", {}, 100, undefined)
    expect(all.deliveries.map((d) => d.createdAt)).toEqual([5000, 5000, 4000, 4000, 3000, 3000, 2000, 2000, 1000, 1000])
    const first = yield* store.listDeliveries("p_old", { endpointId: endpoints[0] as string }, 2, undefined)
    expect(first.deliveries.map((d) => [d.endpointId, d.createdAt])).toEqual([
      [endpoints[0], 5000],
      [endpoints[0], 4000]
    ])
    const rest = yield* store.listDeliveries("p_old", { endpointId: endpoints[0] as string }, 10, first.next ?? undefined)
    expect(rest.deliveries.map((d) => d.createdAt)).toEqual([3000, 2000, 1000])
    // Deleting an endpoint takes its pending delivery, and that delivery's listing row, with it.
    expect(yield* store.deleteEndpoint("p_old", endpoints[1] as string, 10_000)).toBe(true)
    expect((yield* store.listDeliveries("p_old", {}, 100, undefined)).deliveries).toHaveLength(9)
    const [listed] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_delivery_listing WHERE partner_id = 'p_old'`
    expect(listed?.n).toBe(9)
  }).pipe(Effect.provide(SqlWebhookStore.pipe(Layer.provideMerge(pgliteLayer()))), Effect.scoped)
)
