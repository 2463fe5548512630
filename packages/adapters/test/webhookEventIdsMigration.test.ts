/**
 * Migration 0033 on a database with events in it: a schema migrated up to 0032 gets events in the
 * default partition (written without a slot time, `created_at` 0) and in day slots, then this
 * build's migrations. Their ids are backfilled, so the fan-out writes nothing for them again;
 * retention frees an id exactly when its event goes, by a slot's drop and row by row, and keeps the
 * ids of the events it keeps. On PGlite, and on PostgreSQL when DATABASE_URL is set.
 */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { describe, expect } from "@effect/vitest"
import type { Ids } from "@frank/core"
import { Effect } from "effect"
import { Migrations, SqlWebhookStore } from "../src/index.js"
import { migratesFrom } from "./support/fromMigration.js"

const BEFORE_EVENT_IDS = 32
const DAY = 24 * 60 * 60 * 1000
/** Day-aligned, so the slots' bounds are easy to state. */
const T0 = Date.UTC(2026, 0, 10)

const partner = "p_ids" as Ids.PartnerId
const endpointId = randomUUID()
/** Written without a slot time: the default partition, deleted row by row. */
const unslotted = randomUUID()
/** In the first day's slot, which goes whole. */
const dropped = randomUUID()
/** In a day retention keeps. */
const kept = randomUUID()

/** Events as 0032 holds them: five day slots from T0, and one row in the default partition. */
const oldEvents = `
  SELECT webhook_prepare_partitions(${T0}, ${DAY}, 4);
  INSERT INTO webhook_endpoints (partner_id, id, url, secret, active, created_at, updated_at)
    VALUES ('${partner}', '${endpointId}', 'https://r.example/h', 'c2VjcmV0', true, 1, 1);
  INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload) VALUES
    ('${partner}', '${unslotted}', 'webhook.test', ${T0}, '{}');
  INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload, created_at) VALUES
    ('${partner}', '${dropped}', 'webhook.test', ${T0}, '{}', ${T0}),
    ('${partner}', '${kept}', 'webhook.test', ${T0 + 3 * DAY}, '{}', ${T0 + 3 * DAY})`

/** The checks, on a schema migrated to 0032 with `oldEvents` in it. */
const migratedKeepsIds = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const applied = yield* Migrations.run
  expect(applied.map(([id]) => id)).toContain(BEFORE_EVENT_IDS + 1)
  const ids = sql<{ id: string; at: number }>`SELECT id, created_at AS at FROM webhook_event_ids
    WHERE partner_id = ${partner} ORDER BY created_at`
  expect(yield* ids).toEqual([
    { id: unslotted, at: 0 },
    { id: dropped, at: T0 },
    { id: kept, at: T0 + 3 * DAY }
  ])
  const [gone] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_proc
    WHERE proname = 'webhook_event_id_free' AND pronamespace = current_schema()::regnamespace`
  expect(gone?.n).toBe(0)

  const stores = yield* SqlWebhookStore.make()
  const append = (id: string, now: number) =>
    stores.events.appendEvent(
      { partnerId: partner, id, type: "webhook.test", occurredAt: now, payload: "{}" },
      { _tag: "Subscribers" },
      now
    )
  // Backfilled: an old event's id written again writes nothing.
  for (const id of [unslotted, dropped, kept]) expect(yield* append(id, T0 + DAY)).toBe(0)

  // Retention two days on: the first day's slot goes whole, the default row goes by row.
  const before = T0 + 2 * DAY
  expect(yield* stores.retention.deleteExpiredDeliveries(before, 1_000)).toBe(0)
  expect(yield* stores.retention.deleteExpiredEvents(before, 1_000)).toBe(2)
  expect(yield* ids).toEqual([{ id: kept, at: T0 + 3 * DAY }])
  // Their ids are free again; the kept event's is not.
  const now = T0 + 4 * DAY
  expect(yield* append(unslotted, now)).toBe(1)
  expect(yield* append(dropped, now)).toBe(1)
  expect(yield* append(kept, now)).toBe(0)
  const [events] = yield* sql<{
    n: number
  }>`SELECT count(*)::int AS n FROM webhook_events WHERE partner_id = ${partner}`
  expect(events?.n).toBe(3)
})

describe("migration 0033: webhook event ids", () => {
  migratesFrom({
    title: "a database with events made by 0032 migrates with their ids; retention frees them",
    before: BEFORE_EVENT_IDS,
    seed: oldEvents,
    check: migratedKeepsIds
  })
})
