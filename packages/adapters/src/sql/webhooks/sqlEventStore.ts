/**
 * The SQL webhook store's `EventStore`: an event and its deliveries are written by one call of
 * `webhook_append_event` (migration 0034) that joins the caller's transaction (the ledger's, for
 * billing events), so the outbox commits with the business change. The same call sends NOTIFY
 * when it created deliveries (unless the store is built with `notify: "none"`); Postgres
 * delivers it at commit, so workers of every instance wake exactly when the event is visible. The fan-out takes `FOR KEY SHARE` on each
 * endpoint (pendingGuard.ts). The events' key includes their time partition (migration 0032), so
 * no unique index on them refuses an id written before: the function first claims the id in the
 * unpartitioned `webhook_event_ids` (migration 0033), and a second write of an id (an event with a
 * source id, emitted again) writes nothing; a concurrent one waits for the first to commit.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"
import { notifyChannel } from "./webhookNotify.js"
import { storeError, type WebhookSql } from "./webhookSql.js"
import type { EventStoreShape } from "@frank/core/stores"

export const sqlEventStore = ({ sql, notifyInTransaction, notifyPayload }: WebhookSql): EventStoreShape => ({
  // @effect/sql provides the transaction's connection to the fibers inside withTransaction.
  insideOpenTransaction: Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isSome),

  // A function (migration 0034, which holds the statement): sent as text, it was planned over
  // every day slot at each call. A null endpoint fans out to every subscribed endpoint.
  appendEvent: (event, target, now) =>
    sql<{ n: number }>`SELECT webhook_append_event(${event.partnerId}, ${event.id}::uuid, ${event.type},
      ${event.occurredAt}, ${event.payload}, ${event.traceParent ?? null}, ${now},
      ${target._tag === "Endpoint" ? target.endpointId : null}::uuid,
      ${notifyInTransaction ? notifyChannel(sql) : sql`NULL`}, ${notifyPayload}) AS n`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.mapError(storeError("appendEvent"))
    )
})
