/**
 * What every part of the SQL webhook store shares: the client (and its untransformed twin for the
 * worker's hand-mapped rows), how it announces due deliveries, and its error mapping.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import { Errors } from "@frank/core"
import { Effect } from "effect"
import { checkNotifyPayload, pgNotify, WEBHOOK_NOTIFY_PAYLOAD } from "./webhookNotify.js"

export interface Options {
  /**
   * When other processes hear of new due deliveries (appended events, replays):
   *   - "in-transaction" (default): a NOTIFY inside the writing transaction, sent by Postgres at
   *     commit. Nothing else to call, but Postgres then commits such transactions one at a time
   *     (it holds its notification queue lock from pre-commit through the commit's WAL flush).
   *   - "none": the store sends nothing; the process announces after its commits
   *     (PgNotifyAnnouncer as the outbox's EventAnnouncer, which the reference host uses).
   */
  readonly notify?: "in-transaction" | "none"
  /**
   * The in-transaction NOTIFY's payload; WEBHOOK_NOTIFY_PAYLOAD by default. Must not be empty (see
   * WEBHOOK_NOTIFY_PAYLOAD); Postgres limits it to 8,000 bytes.
   */
  readonly notifyPayload?: string
}

export interface WebhookSql {
  readonly sql: SqlClient.SqlClient
  /** For the worker's per-batch statements, whose rows are mapped by hand: no per-key renaming. */
  readonly untransformed: SqlClient.SqlClient
  /** Whether writes that make deliveries pending NOTIFY in their own transaction. */
  readonly notifyInTransaction: boolean
  /** The payload of that NOTIFY. */
  readonly notifyPayload: string
  /** The in-transaction NOTIFY as a statement of its own. */
  readonly notify: Effect.Effect<unknown, SqlError.SqlError>
}

export const storeError = Errors.storeErrorFor("webhook store")

export const makeWebhookSql = (options: Options): Effect.Effect<WebhookSql, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const notifyPayload = yield* checkNotifyPayload(options.notifyPayload ?? WEBHOOK_NOTIFY_PAYLOAD)
    const sql = yield* SqlClient.SqlClient
    return {
      sql,
      untransformed: sql.withoutTransforms(),
      notifyInTransaction: (options.notify ?? "in-transaction") === "in-transaction",
      notifyPayload,
      notify: sql`SELECT ${pgNotify(sql, notifyPayload)}`
    }
  })
