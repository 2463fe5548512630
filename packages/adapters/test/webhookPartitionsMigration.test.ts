/**
 * Migration 0032 on a database with webhook history in it: a schema migrated up to 0031 (the
 * build before time partitions) gets events, deliveries (one pending, one delivered) and attempts,
 * then this build's migrations. The rows stay where they were, as the `legacy` slot; the store
 * claims the old pending delivery with its event, lists the old attempts, writes new history into
 * the day's slot that retention created ahead, and retention drops the legacy slot whole once its
 * deliveries are finished and it is past. On PGlite, and on PostgreSQL when DATABASE_URL is set.
 */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { describe, expect } from "@effect/vitest"
import type { Ids } from "@frank/core"
import { Effect } from "effect"
import { Migrations, SqlWebhookStore } from "../src/index.js"
import { migratesFrom } from "./support/fromMigration.js"

const BEFORE_PARTITIONS = 31
const DAY = 24 * 60 * 60 * 1000
/** Day-aligned, so the slots' bounds are easy to state. */
const T0 = Date.UTC(2026, 0, 10)

const partner = "p_legacy" as Ids.PartnerId
const endpointId = randomUUID()
const pendingEvent = randomUUID()
const deliveredEvent = randomUUID()
const pendingDelivery = randomUUID()
const deliveredDelivery = randomUUID()

/** History as the build before partitions wrote it: columns of 0031, no slot times. */
const oldHistory = `
  INSERT INTO webhook_endpoints (partner_id, id, url, secret, active, created_at, updated_at)
    VALUES ('${partner}', '${endpointId}', 'https://r.example/h', 'c2VjcmV0', true, 1, 1);
  INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload) VALUES
    ('${partner}', '${pendingEvent}', 'webhook.test', ${T0}, '{"old":"pending"}'),
    ('${partner}', '${deliveredEvent}', 'webhook.test', ${T0}, '{"old":"delivered"}');
  INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at,
      created_at, updated_at) VALUES
    ('${partner}', '${pendingDelivery}', '${endpointId}', '${pendingEvent}', 'webhook.test', 'pending', 1, ${T0}, ${T0}, ${T0}),
    ('${partner}', '${deliveredDelivery}', '${endpointId}', '${deliveredEvent}', 'webhook.test', 'delivered', 2, NULL, ${T0}, ${T0});
  INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error,
      response_snippet) VALUES
    ('${partner}', '${pendingDelivery}', 1, ${T0}, 5, 503, 'HTTP 503', NULL),
    ('${partner}', '${deliveredDelivery}', 1, ${T0}, 5, 500, 'HTTP 500', 'busy'),
    ('${partner}', '${deliveredDelivery}', 2, ${T0}, 5, 200, NULL, 'ok')`

/** The checks, on a schema migrated to 0031 with `oldHistory` in it. */
const migratedKeepsHistory = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const applied = yield* Migrations.run
  expect(applied.map(([id]) => id)).toContain(BEFORE_PARTITIONS + 1)
  const partitioned = yield* sql<{ relname: string }>`SELECT c.relname FROM pg_partitioned_table p
    JOIN pg_class c ON c.oid = p.partrelid WHERE c.relnamespace = current_schema()::regnamespace ORDER BY 1`
  expect(partitioned.map((r) => r.relname)).toEqual(["webhook_attempts", "webhook_deliveries", "webhook_events"])
  const slots = yield* sql<{ suffix: string; lower: number | null; upper: number }>`
    SELECT suffix, lower, upper FROM webhook_history_partitions ORDER BY upper`
  expect(slots).toEqual([{ suffix: "legacy", lower: null, upper: T0 + 1 }])
  const [counted] = yield* sql<{ events: number; deliveries: number; attempts: number }>`SELECT
    (SELECT count(*) FROM webhook_events_legacy)::int AS events,
    (SELECT count(*) FROM webhook_deliveries_legacy)::int AS deliveries,
    (SELECT count(*) FROM webhook_attempts_legacy)::int AS attempts`
  expect(counted).toEqual({ events: 2, deliveries: 2, attempts: 3 })

  const stores = yield* SqlWebhookStore.make()
  // The old attempts show in the log.
  const delivered = yield* stores.log.getDelivery(partner, deliveredDelivery as Ids.DeliveryId)
  expect(delivered?.responseCodes).toEqual([500, 200])
  // Retention readies the days ahead; the legacy slot is not past yet, nothing goes.
  const now = T0 + DAY / 2
  yield* stores.retention.prepare(now)
  const ahead = yield* sql<{
    lower: number
  }>`SELECT lower FROM webhook_history_partitions WHERE lower IS NOT NULL ORDER BY lower`
  expect(ahead.map((r) => r.lower)).toEqual([T0 + 1, T0 + DAY, T0 + 2 * DAY, T0 + 3 * DAY])
  // The old pending delivery is claimed with its old event's payload, and finished.
  const claimed = yield* stores.queue.claimDue(now, 60_000, 10, "token-1")
  expect(claimed.map((c) => [c.id, c.payload])).toEqual([[pendingDelivery, '{"old":"pending"}']])
  yield* stores.queue.finishAttempts(
    claimed.map((claim) => ({
      claim,
      next: { status: "delivered" as const, attempts: 2, nextAttemptAt: null, leaseUntil: null },
      attempt: { attempt: 2, startedAt: now, durationMs: 3, responseStatus: 200, error: null },
      outcome: "Answered" as const
    })),
    now
  )
  const resent = yield* stores.log.getDelivery(partner, pendingDelivery as Ids.DeliveryId)
  expect([resent?.status, resent?.responseCodes]).toEqual(["delivered", [503, 200]])
  // New history goes into the day's slot.
  yield* stores.events.appendEvent(
    { partnerId: partner, id: randomUUID(), type: "webhook.test", occurredAt: now, payload: "{}" },
    { _tag: "Subscribers" },
    now
  )
  const [placed] = yield* sql<{ events: number; deliveries: number }>`SELECT
    (SELECT count(*) FROM ${sql(`webhook_events_p${T0 + 1}`)})::int AS events,
    (SELECT count(*) FROM ${sql(`webhook_deliveries_p${T0 + 1}`)})::int AS deliveries`
  expect(placed).toEqual({ events: 1, deliveries: 1 })
  // Once past, the legacy slot goes whole, events with it; the new day's stays.
  expect(yield* stores.retention.deleteExpiredDeliveries(T0 + 1, 1_000)).toBe(2)
  expect(yield* stores.retention.deleteExpiredEvents(T0 + 1, 1_000)).toBe(2)
  const left = yield* sql<{ suffix: string }>`SELECT suffix FROM webhook_history_partitions ORDER BY upper LIMIT 1`
  expect(left).toEqual([{ suffix: `p${T0 + 1}` }])
  const [tables] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class
    WHERE relname LIKE 'webhook\\_%\\_legacy' AND relnamespace = current_schema()::regnamespace`
  expect(tables?.n).toBe(0)
})

describe("migration 0032: webhook history in time partitions", () => {
  migratesFrom({
    title: "a database with history made by 0031 migrates, keeps its rows and drops them by slot",
    before: BEFORE_PARTITIONS,
    seed: oldHistory,
    check: migratedKeepsHistory
  })
})
