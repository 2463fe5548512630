/**
 * Processed event ids in the receiver's own SQL database (PostgreSQL or PGlite).
 *
 * `runOnce` inserts the marker first and then runs the action, both in one transaction:
 * - `INSERT ... ON CONFLICT DO NOTHING` that inserts no row means the event was committed
 *   before: Duplicate, and the action does not run.
 * - While one delivery's transaction is open, a concurrent delivery's INSERT of the same id waits
 *   on the unique index until that transaction ends; it then inserts nothing (the first
 *   committed: Duplicate) or inserts and runs the action itself (the first rolled back). So the
 *   action commits at most once, across connections and host instances.
 * - The action's own SQL through the same SqlClient joins the transaction, so its writes and the
 *   marker commit or roll back together. Called inside an enclosing `sql.withTransaction`, the
 *   unit becomes a savepoint and commits with the caller's transaction.
 *
 * A failed COMMIT surfaces as a defect (that is how @effect/sql's withTransaction reports it):
 * still not a success, so the receiver still answers non-2xx.
 *
 * Assumes READ COMMITTED (the PostgreSQL default): under REPEATABLE READ or SERIALIZABLE the
 * waiting INSERT ends in a serialization failure (a StoreError, so a non-2xx answer and a retry)
 * instead of DO NOTHING.
 *
 * The table lives in the receiver's database, not in Frank's migrations: call
 * `ensureTable` once at startup (or copy its DDL into your own migrations).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Errors, WebhookReceiver } from "@frank/core"
import { Clock, Effect, Layer, Option } from "effect"

export const TABLE = "webhook_processed_events"

/** A plain schema name: what Frank's database layers put first in the search_path. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/

/**
 * The search_path's first schema, created when it does not exist yet: Frank's database layers
 * point the connection at their schema (`frank` by default), which a receiver's own database,
 * never migrated by Frank, does not have.
 */
const ensureSchema = (sql: SqlClient.SqlClient) =>
  Effect.flatMap(
    sql<{
      schema: string | null
      path: string
    }>`SELECT current_schema() AS schema, current_setting('search_path') AS path`,
    ([row]) => {
      const first = row?.path.split(",")[0]?.trim().replace(/^"|"$/g, "") ?? ""
      return row?.schema === null && PLAIN_NAME.test(first)
        ? sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${first}`)
        : Effect.void
    }
  )

/** Creates the marker table if it is missing. Safe to run on every start (not concurrently from several instances). */
export const ensureTable: Effect.Effect<void, SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.zipRight(
      ensureSchema(sql),
      sql`CREATE TABLE IF NOT EXISTS webhook_processed_events (
    event_id text PRIMARY KEY,
    processed_at bigint NOT NULL
  )`
    )
).pipe(Effect.asVoid)

/**
 * Carries the action's own failure out of the transaction (which must see a failure to roll
 * back) so that it can be told apart from the store's SqlErrors afterwards, even when the
 * action's error type is itself SqlError.
 */
class ActionFailed<E> {
  constructor(readonly error: E) {}
}

const storeError = Errors.storeErrorFor("processed events")

export const layer: Layer.Layer<WebhookReceiver.ProcessedEvents, never, SqlClient.SqlClient> = Layer.effect(
  WebhookReceiver.ProcessedEvents,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      runOnce: <A, E, R>(eventId: string, action: Effect.Effect<A, E, R>) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const now = yield* Clock.currentTimeMillis
              const inserted = yield* sql`INSERT INTO webhook_processed_events (event_id, processed_at)
                VALUES (${eventId}, ${now}) ON CONFLICT (event_id) DO NOTHING RETURNING 1 AS inserted`
              if (inserted.length === 0) return WebhookReceiver.ConsumeResult.duplicate
              const value = yield* Effect.mapError(action, (e) => new ActionFailed(e))
              return WebhookReceiver.ConsumeResult.processed(value)
            })
          )
          .pipe(
            Effect.catchAll(
              (e: ActionFailed<E> | SqlError): Effect.Effect<never, E | Errors.StoreError> =>
                e instanceof ActionFailed ? Effect.fail(e.error) : Effect.fail(storeError("recording the event")(e))
            )
          ),
      processedAt: (eventId: string) =>
        // Aliased to one word so the row key is the same with or without a snake→camel client.
        sql<{
          at: number | string
        }>`SELECT processed_at AS at FROM webhook_processed_events WHERE event_id = ${eventId}`.pipe(
          // Clients without Frank's int8 parser return bigint columns as strings.
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => Number(r.at))),
          Effect.mapError(storeError("lookup"))
        )
    }
  })
)
