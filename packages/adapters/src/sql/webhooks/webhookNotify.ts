/**
 * The NOTIFY that wakes workers when deliveries became due (appended events, replays): its channel
 * and payload, checked once where a store or an announcer is built.
 *
 * NOTIFY channels belong to the database, not to a schema: each Frank schema has a channel of its
 * own, `<schema>.webhooks`, so engines sharing a database in different schemas do not wake each
 * other. Statements name it through the connection's `current_schema()` (the schema the
 * search_path leads to, where the tables they write are), listeners through `webhookNotifyChannel`.
 */
import type * as Statement from "@effect/sql/Statement"
import { Effect } from "effect"

/** What follows the schema's name in its channel's name. */
export const WEBHOOK_NOTIFY_CHANNEL_SUFFIX = ".webhooks"

/** The channel the workers of Frank's schema `schema` LISTEN on. */
export const webhookNotifyChannel = (schema: string): string => `${schema}${WEBHOOK_NOTIFY_CHANNEL_SUFFIX}`

/** The connection's schema's channel, as a fragment of a statement. */
export const notifyChannel = (sql: Statement.Constructor): Statement.Fragment =>
  sql`current_schema() || ${WEBHOOK_NOTIFY_CHANNEL_SUFFIX}`

/** `pg_notify(<the connection's schema's channel>, payload)`, as a fragment of a statement. */
export const pgNotify = (sql: Statement.Constructor, payload: string): Statement.Fragment =>
  sql`pg_notify(${notifyChannel(sql)}, ${payload})`

/**
 * The notification's payload. Not empty: @effect/sql-pg's `listen` drops notifications whose
 * payload is falsy, so an empty one would never wake a worker.
 */
export const WEBHOOK_NOTIFY_PAYLOAD = "due"

/** Postgres refuses NOTIFY payloads of 8,000 bytes or more. */
export const MAX_NOTIFY_PAYLOAD_BYTES = 8000

/** A payload `listen` delivers and Postgres accepts; dies otherwise (a wiring bug, not a runtime condition). */
export const checkNotifyPayload = (payload: string): Effect.Effect<string> =>
  payload.length === 0 || Buffer.byteLength(payload) >= MAX_NOTIFY_PAYLOAD_BYTES
    ? Effect.dieMessage(`webhook NOTIFY payload must be 1 to ${MAX_NOTIFY_PAYLOAD_BYTES - 1} bytes`)
    : Effect.succeed(payload)
