/**
 * The SQL webhook store's `EventStore`: an event and its deliveries are written by one statement
 * that joins the caller's transaction (the ledger's, for billing events), so the outbox commits
 * with the business change. The same statement sends NOTIFY when it created deliveries (unless the
 * store is built with `notify: "none"`); Postgres delivers it at commit, so workers of every
 * instance wake exactly when the event is visible. The fan-out takes `FOR KEY SHARE` on each
 * endpoint (pendingGuard.ts). The events' key includes their time partition (migration 0032), so
 * no unique index on them refuses an id written before: the statement first claims the id in the
 * unpartitioned `webhook_event_ids` (migration 0033), and a second write of an id (an event with a
 * source id, emitted again) writes nothing; a concurrent one waits for the first to commit.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"
import { pgNotify } from "./webhookNotify.js"
import { storeError, type WebhookSql } from "./webhookSql.js"
import type { EventStoreShape } from "@frank/core/stores"

export const sqlEventStore = ({ sql, notifyInTransaction, notifyPayload }: WebhookSql): EventStoreShape => ({
  // @effect/sql provides the transaction's connection to the fibers inside withTransaction.
  insideOpenTransaction: Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isSome),

  appendEvent: (event, target, now) => {
    const targetCondition =
      target._tag === "Endpoint"
        ? sql`e.id = ${target.endpointId}::uuid`
        : sql`e.active AND (e.event_types IS NULL OR ev.type = ANY (e.event_types))`
    return sql<{ n: number }>`
      WITH claimed AS (
        INSERT INTO webhook_event_ids (partner_id, id, created_at) VALUES (${event.partnerId}, ${event.id}::uuid, ${now})
        ON CONFLICT DO NOTHING
        RETURNING partner_id, id
      ), ev AS (
        INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload, trace_parent, created_at)
        SELECT claimed.partner_id, claimed.id, ${event.type}, ${event.occurredAt}, ${event.payload}, ${event.traceParent ?? null}, ${now}
        FROM claimed
        RETURNING partner_id, id, type
      ), d AS (
        INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
        SELECT ev.partner_id, gen_random_uuid(), e.id, ev.id, ev.type, 'pending', 0, ${now}, ${now}, ${now}
        FROM ev JOIN webhook_endpoints e ON e.partner_id = ev.partner_id
        WHERE e.deleted_at IS NULL AND ${targetCondition}
        FOR KEY SHARE OF e
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM d)::int AS n${
        notifyInTransaction
          ? sql`, (SELECT count(*) FROM (SELECT ${pgNotify(sql, notifyPayload)} FROM (SELECT 1 FROM d LIMIT 1) one) sent)::int AS notified`
          : sql``
      }`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.mapError(storeError("appendEvent"))
    )
  }
})
