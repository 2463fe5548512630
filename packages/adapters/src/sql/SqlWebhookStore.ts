/**
 * The webhook store on SQL (PostgreSQL and PGlite).
 *
 * - An event and its deliveries are written by one statement that joins the caller's
 *   transaction (the ledger's, for billing events): the outbox commits with the business change.
 *   The same statement sends NOTIFY on `frank_webhooks` when it created deliveries; Postgres
 *   delivers it at commit, so workers of every instance wake exactly when the event is visible.
 * - Workers claim with `FOR UPDATE SKIP LOCKED` and a lease, in one statement per batch, and
 *   record an outcome only while their claim token still holds the row (fencing).
 * - The claim statement encodes the `Claim` transition of the pure state machine; outcomes and
 *   replays are decided by the state machine in TypeScript and written as they are decided.
 * - The worker's two per-batch statements (claim, outcomes) are PL/pgSQL functions (migration
 *   0008), so Postgres keeps their plans instead of planning every few milliseconds. The live
 *   claim's text is migration 0015's, which also defines "claimable" for the claim, `nextWakeAt`
 *   and `dueBacklog`.
 * - Retention's two statements are functions too (migration 0018): index lookups only, batches
 *   bounded by the caller, rows other transactions hold skipped.
 * - Endpoint health lives in a table of its own beside the endpoints (migration 0019,
 *   endpointHealthSql.ts): the outcome write keeps it, reads join it, a patch or the health rule's
 *   pause writes it in the endpoint's transaction.
 */
import { SqlClient, type Statement } from "@effect/sql"
import {
  type DeliveryId,
  type EndpointId,
  type ClaimedDelivery,
  type DeliveryRecord,
  type DeliveryState,
  type DeliveryStatus,
  type EndpointHealth,
  EventStore,
  type EventStoreShape,
  type EndpointCondition,
  type EventType,
  type SignatureScheme,
  type WebhookEndpoint,
  WebhookStore,
  type WebhookStoreShape,
  storeErrorFor,
  type PartnerId
} from "@frank/core"
import { Context, Effect, Either, Layer, Option } from "effect"
import { endpointHealthSql } from "./endpointHealthSql.js"
import { sqlFailures } from "./sqlFailures.js"

/** The channel workers LISTEN on. */
export const WEBHOOK_NOTIFY_CHANNEL = "frank_webhooks"
/**
 * The notification's payload. Not empty: @effect/sql-pg's `listen` drops notifications whose
 * payload is falsy, so an empty one would never wake a worker.
 */
export const WEBHOOK_NOTIFY_PAYLOAD = "due"

const storeError = storeErrorFor("webhook store")

/**
 * Rows come back as the record itself (names transformed to camelCase; int8 parsed to numbers),
 * with the health columns (`withHealth`) flat beside the endpoint's.
 */
type EndpointRow = Omit<WebhookEndpoint, "health"> & EndpointHealth

const ENDPOINT_COLUMNS =
  "partner_id, id, url, event_types, active, secret, previous_secret, previous_secret_valid_until, created_at, updated_at" +
  // Migration 0017.
  ", signature_scheme"

/** Unfinished deletions one sweep purges at most (each is a short transaction of its own); the rest wait for the next sweep. */
const PURGES_PER_SWEEP = 100

const endpointFromRow = (r: EndpointRow): WebhookEndpoint => {
  const { lastSuccessAt, failingSince, disabledAt, disabledReason, strikes, strikesSince, ...endpoint } = r
  return {
    ...endpoint,
    eventTypes: r.eventTypes === null ? null : [...r.eventTypes],
    health: { lastSuccessAt, failingSince, disabledAt, disabledReason, strikes, strikesSince }
  }
}

interface DeliveryRow {
  readonly partnerId: PartnerId
  readonly id: DeliveryId
  readonly endpointId: EndpointId
  readonly eventId: string
  readonly eventType: EventType
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly nextAttemptAt: number | null
  readonly leaseUntil: number | null
  readonly createdAt: number
  readonly updatedAt: number
  /**
   * Status codes as text ("503,-,200", `-` for no answer): @effect/sql's name transform would
   * trip over a JSON array that starts with null.
   */
  readonly responseCodes: string
  readonly lastError: string | null
}

const DELIVERY_COLUMNS = `d.partner_id, d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at,
  d.lease_until, d.created_at, d.updated_at,
  coalesce((SELECT string_agg(coalesce(a.response_status::text, '-'), ',' ORDER BY a.n) FROM webhook_attempts a
    WHERE a.partner_id = d.partner_id AND a.delivery_id = d.id), '') AS response_codes,
  (SELECT a.error FROM webhook_attempts a WHERE a.partner_id = d.partner_id AND a.delivery_id = d.id ORDER BY a.n DESC LIMIT 1) AS last_error`

const parseCodes = (text: string): ReadonlyArray<number | null> =>
  text === "" ? [] : text.split(",").map((c) => (c === "-" ? null : Number(c)))

const deliveryFromRow = (r: DeliveryRow): DeliveryRecord => ({ ...r, responseCodes: parseCodes(r.responseCodes) })

/**
 * A claimed row as the driver returns it: read without @effect/sql's name transform (the claim is
 * the hot path, and the row is mapped to a ClaimedDelivery right away anyway).
 */
interface ClaimRow {
  readonly partner_id: PartnerId
  readonly id: DeliveryId
  readonly endpoint_id: EndpointId
  readonly event_id: string
  readonly event_type: EventType
  readonly attempts: number
  readonly lease_until: number
  readonly payload: string
  readonly url: string
  readonly secret: string
  readonly previous_secret: string | null
  readonly previous_secret_valid_until: number | null
  readonly signature_scheme: SignatureScheme
}

export interface SqlWebhookStoreOptions {
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

/** Postgres refuses NOTIFY payloads of 8,000 bytes or more. */
export const MAX_NOTIFY_PAYLOAD_BYTES = 8000

/** A payload `listen` delivers and Postgres accepts; dies otherwise (a wiring bug, not a runtime condition). */
export const checkNotifyPayload = (payload: string): Effect.Effect<string> =>
  payload.length === 0 || Buffer.byteLength(payload) >= MAX_NOTIFY_PAYLOAD_BYTES
    ? Effect.dieMessage(`webhook NOTIFY payload must be 1 to ${MAX_NOTIFY_PAYLOAD_BYTES - 1} bytes`)
    : Effect.succeed(payload)

export const makeSqlWebhookStoreWith = (options: SqlWebhookStoreOptions) =>
  Effect.gen(function* () {
    const notifyPayload = yield* checkNotifyPayload(options.notifyPayload ?? WEBHOOK_NOTIFY_PAYLOAD)
    const notifyInTransaction = (options.notify ?? "in-transaction") === "in-transaction"
    const sql = yield* SqlClient.SqlClient
    /** For the worker's per-batch statements, whose rows are mapped by hand: no per-key renaming. */
    const untransformed = sql.withoutTransforms()
    const endpointColumns = sql.literal(ENDPOINT_COLUMNS)
    const health = endpointHealthSql(sql)
    const deliveryColumns = sql.literal(DELIVERY_COLUMNS)

    /**
     * `FOR NO KEY UPDATE` when changing it: a patch or a rotation must not wait for the business
     * transactions holding `FOR KEY SHARE` on the endpoint (see `pendingGuard`); only a deletion does.
     */
    const selectEndpoint = (partnerId: PartnerId, id: string, forUpdate: boolean) =>
      Effect.map(
        sql<EndpointRow>`SELECT ${endpointColumns}, ${health.columns} FROM webhook_endpoints ${health.join}
        WHERE partner_id = ${partnerId} AND id = ${id}::uuid AND deleted_at IS NULL${forUpdate ? sql` FOR NO KEY UPDATE OF webhook_endpoints` : sql``}`,
        (rows) => (rows[0] === undefined ? undefined : endpointFromRow(rows[0]))
      )

    const writeEndpoint = (e: WebhookEndpoint) =>
      sql`UPDATE webhook_endpoints SET url = ${e.url}, event_types = ${e.eventTypes === null ? null : [...e.eventTypes]}, active = ${e.active},
      secret = ${e.secret}, previous_secret = ${e.previousSecret}, previous_secret_valid_until = ${e.previousSecretValidUntil},
      signature_scheme = ${e.signatureScheme},
      updated_at = ${e.updatedAt} WHERE partner_id = ${e.partnerId} AND id = ${e.id}::uuid`

    /**
     * Every write that makes a delivery `pending` (an event's fan-out, a retry, a replay) first takes
     * `FOR KEY SHARE` on the delivery's endpoint and holds it to its commit; a deletion takes
     * `FOR UPDATE` on it before removing the pending deliveries, in a later statement. The two
     * conflict, so whichever commits second sees the other: the deletion waits and then removes the
     * new pending row, or the writer waits and then sees the endpoint deleted (the fan-out leaves it
     * out; a retry drops its row; a replay answers DELIVERY_ENDPOINT_DELETED). Without this a
     * delivery made pending around a concurrent delete stays `pending` for a deleted endpoint
     * forever. `KEY SHARE` because writers do not conflict with each other, nor with a patch or
     * rotation (`FOR NO KEY UPDATE`).
     */
    const pendingGuard = (targets: ReadonlyArray<{ readonly partnerId: PartnerId; readonly endpointId: string }>) =>
      sql`SELECT 1 FROM webhook_endpoints
      WHERE (partner_id, id) IN (SELECT * FROM unnest(${targets.map((t) => t.partnerId)}::text[], ${targets.map((t) => t.endpointId)}::uuid[]))
      FOR KEY SHARE`

    /** Deletes the pending deliveries `which` (a condition on `d`) selects, with their attempt rows. */
    const dropPending = (which: Statement.Fragment) => sql`
    WITH dropped AS (
      DELETE FROM webhook_deliveries d WHERE ${which} AND d.status = 'pending' RETURNING d.partner_id, d.id
    )
    DELETE FROM webhook_attempts a USING dropped WHERE a.partner_id = dropped.partner_id AND a.delivery_id = dropped.id`

    /** An endpoint deleted as the partner sees it: gone from the API, its secrets wiped; `purgeLater` marks its pending deliveries as still to remove. */
    const markDeleted = (partnerId: PartnerId, id: string, now: number, purgeLater: boolean) =>
      sql`WITH marked AS (
        UPDATE webhook_endpoints SET deleted_at = ${now}, updated_at = ${now}, active = false,
        secret = '', previous_secret = NULL, previous_secret_valid_until = NULL, purge_pending = ${purgeLater}
        WHERE partner_id = ${partnerId} AND id = ${id}::uuid AND deleted_at IS NULL RETURNING id
      ), forgotten AS (
        -- Its health goes with it: nothing reads it any more, and the disable rule's index stays small.
        DELETE FROM webhook_endpoint_health h USING marked WHERE h.partner_id = ${partnerId} AND h.endpoint_id = marked.id
      )
      SELECT id FROM marked`

    /**
     * A deletion's second step, in a transaction of its own: locks the marked endpoint, which
     * waits for (or, with `skipLocked`, gives up on) the writers holding it (pendingGuard); then,
     * in later statements that see their rows, removes its pending deliveries and clears the mark.
     * True when it purged.
     */
    const purgeIfHeld = (partnerId: PartnerId, id: string, skipLocked: boolean) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const [held] = yield* sql`SELECT id FROM webhook_endpoints
          WHERE partner_id = ${partnerId} AND id = ${id}::uuid AND purge_pending FOR UPDATE${skipLocked ? sql` SKIP LOCKED` : sql``}`
          if (held === undefined) return false
          yield* dropPending(sql`d.partner_id = ${partnerId} AND d.endpoint_id = ${id}::uuid`)
          // Not only bookkeeping: an update made under FOR UPDATE counts as a key update for later
          // KEY SHARE lockers. A fan-out whose statement read the endpoint before the deletion and
          // locks it only now must re-read it and find it deleted; after non-key updates alone it
          // would lock the version it read and add a delivery nothing would ever remove
          // (test/webhook-sql.test.ts, "fans out to nothing").
          yield* sql`UPDATE webhook_endpoints SET purge_pending = false WHERE partner_id = ${partnerId} AND id = ${id}::uuid`
          return true
        })
      )

    /**
     * Replaces the locked live endpoint with what `change` decides (nothing when it decides
     * nothing) and runs `alongside` on the result, all in one transaction.
     */
    const changeEndpoint = <E>(
      partnerId: PartnerId,
      id: string,
      change: (current: WebhookEndpoint) => WebhookEndpoint | undefined,
      alongside: (next: WebhookEndpoint) => Effect.Effect<void, E>
    ) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const current = yield* selectEndpoint(partnerId, id, true)
          if (current === undefined) return undefined
          const next = change(current)
          if (next === undefined) return undefined
          yield* writeEndpoint(next)
          yield* health.write(next, current.health)
          // A paused endpoint's pending deliveries leave the due index, and come back on
          // reactivation (migration 0011): claims no longer step over its backlog.
          if (next.active !== current.active)
            yield* sql`UPDATE webhook_deliveries SET endpoint_paused = ${!next.active}
                WHERE partner_id = ${partnerId} AND endpoint_id = ${id}::uuid AND status = 'pending' AND endpoint_paused = ${next.active}`
          yield* alongside(next)
          return next
        })
      )

    const store: WebhookStoreShape & EventStoreShape = {
      insertEndpoint: (endpoint, maxPerPartner) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              // Serializes registrations of one partner, so the count below stays exact under concurrency.
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`webhook_endpoints:${endpoint.partnerId}`}))`
              const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_endpoints
              WHERE partner_id = ${endpoint.partnerId} AND deleted_at IS NULL`
              if ((row?.n ?? 0) >= maxPerPartner) return false
              yield* sql`INSERT INTO webhook_endpoints ${sql.insert({
                partnerId: endpoint.partnerId,
                id: endpoint.id,
                url: endpoint.url,
                eventTypes: endpoint.eventTypes === null ? null : [...endpoint.eventTypes],
                active: endpoint.active,
                secret: endpoint.secret,
                previousSecret: endpoint.previousSecret,
                previousSecretValidUntil: endpoint.previousSecretValidUntil,
                signatureScheme: endpoint.signatureScheme,
                createdAt: endpoint.createdAt,
                updatedAt: endpoint.updatedAt
              })}`
              return true
            })
          )
          .pipe(Effect.mapError(storeError("insertEndpoint"))),

      listEndpoints: (partnerId) =>
        sql<EndpointRow>`SELECT ${endpointColumns}, ${health.columns} FROM webhook_endpoints ${health.join}
        WHERE partner_id = ${partnerId} AND deleted_at IS NULL ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(endpointFromRow)),
          Effect.mapError(storeError("listEndpoints"))
        ),

      getEndpoint: (partnerId, id) =>
        selectEndpoint(partnerId, id, false).pipe(Effect.mapError(storeError("getEndpoint"))),

      modifyEndpoint: (partnerId, id, change) =>
        changeEndpoint(partnerId, id, change, () => Effect.void).pipe(Effect.mapError(storeError("modifyEndpoint"))),

      disableEndpoint: (partnerId, id, disable, alongside) =>
        changeEndpoint(partnerId, id, disable, alongside).pipe(
          Effect.mapError(sqlFailures(storeError("disableEndpoint")))
        ),

      failingEndpoints: (strikesSinceBy, minFailures, limit) =>
        health.failing(strikesSinceBy, minFailures, limit).pipe(Effect.mapError(storeError("failingEndpoints"))),

      earliestStrikes: (minFailures) =>
        health.earliestStrikes(minFailures).pipe(Effect.mapError(storeError("earliestStrikes"))),

      deleteEndpoint: (partnerId, id, now) =>
        Effect.gen(function* () {
          if (Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
            // Inside a caller's transaction nothing commits before the rest, and the lock must
            // come first: a writer's KEY SHARE passes an uncommitted non-key update without
            // re-reading the row, so marking the endpoint deleted first would not keep the
            // writers out. The lock alone waits for them (pendingGuard), and the statements
            // after it see their rows.
            const [held] = yield* sql`SELECT id FROM webhook_endpoints
                WHERE partner_id = ${partnerId} AND id = ${id}::uuid AND deleted_at IS NULL FOR UPDATE`
            if (held === undefined) return false
            // Made under the FOR UPDATE, so a fan-out that read the endpoint earlier re-reads it (purgeIfHeld).
            yield* markDeleted(partnerId, id, now, false)
            yield* dropPending(sql`d.partner_id = ${partnerId} AND d.endpoint_id = ${id}::uuid`)
            return true
          }
          // Two steps. First the deletion, committed on its own (a NO KEY UPDATE: it waits for
          // no KEY SHARE writer, only for a patch or rotation in progress): the endpoint is gone
          // for the partner, fan-outs leave it out and take no lock on it, the claim skips its
          // deliveries. Then the purge, whose FOR UPDATE waits for the writers holding the
          // endpoint then — fan-outs that saw it live, and retries and replays of its
          // deliveries (pendingGuard), which see it deleted once they have their lock — but not
          // for fan-outs begun after the first step, so a partner whose business transactions
          // overlap without pause cannot starve it (KEY SHARE lockers do not queue behind a
          // waiting FOR UPDATE). Stopped in between, the host leaves the endpoint
          // marked `purge_pending` (migration 0010), and the worker's sweep purges it.
          const [marked] = yield* markDeleted(partnerId, id, now, true)
          if (marked === undefined) return false
          // The deletion has committed: a failing purge is the sweep's to finish, not an error
          // for the partner (whose retried DELETE would only find the endpoint gone).
          yield* purgeIfHeld(partnerId, id, false).pipe(
            Effect.catchAll((e) =>
              Effect.logWarning(
                `webhook endpoint ${id}: deleted; its pending deliveries are left to the worker's sweep`,
                e
              )
            )
          )
          return true
        }).pipe(Effect.mapError(storeError("deleteEndpoint"))),

      appendEvent: (event, target, now) => {
        const targetCondition =
          target._tag === "Endpoint"
            ? sql`e.id = ${target.endpointId}::uuid`
            : sql`e.active AND (e.event_types IS NULL OR ev.type = ANY (e.event_types))`
        return sql<{ n: number }>`
        WITH ev AS (
          INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload)
          VALUES (${event.partnerId}, ${event.id}::uuid, ${event.type}, ${event.occurredAt}, ${event.payload})
          ON CONFLICT (partner_id, id) DO NOTHING
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
            ? sql`, (SELECT count(*) FROM (SELECT pg_notify(${WEBHOOK_NOTIFY_CHANNEL}, ${notifyPayload}) FROM (SELECT 1 FROM d LIMIT 1) one) sent)::int AS notified`
            : sql``
        }`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.mapError(storeError("appendEvent"))
        )
      },

      claimDue: (now, leaseMs, limit, claimToken) =>
        // The statement is a function with a cached generic plan (migration 0008): no parse and
        // plan per claim.
        untransformed<ClaimRow>`SELECT * FROM webhook_claim_due(${now}, ${now + leaseMs}, ${limit}, ${claimToken})`.pipe(
          Effect.map((rows) =>
            rows.map(
              (r): ClaimedDelivery => ({
                partnerId: r.partner_id,
                id: r.id,
                endpointId: r.endpoint_id,
                eventId: r.event_id,
                eventType: r.event_type,
                payload: r.payload,
                url: r.url,
                secret: r.secret,
                previousSecret: r.previous_secret,
                previousSecretValidUntil: r.previous_secret_valid_until,
                signatureScheme: r.signature_scheme,
                state: { status: "delivering", attempts: r.attempts, nextAttemptAt: null, leaseUntil: r.lease_until },
                claimToken
              })
            )
          ),
          Effect.mapError(storeError("claimDue"))
        ),

      finishAttempts: (finished, now) =>
        finished.length === 0
          ? Effect.succeed([])
          : Effect.gen(function* () {
              // One statement for the batch, fenced by the claim token (migration 0008 has the body
              // and why it is a function): the outcomes travel as one JSON parameter.
              const input = JSON.stringify(
                finished.map((f) => ({
                  partner_id: f.claim.partnerId,
                  id: f.claim.id,
                  claim_token: f.claim.claimToken,
                  status: f.next.status,
                  attempts: f.next.attempts,
                  next_attempt_at: f.next.nextAttemptAt,
                  attempt: f.attempt.attempt,
                  started_at: f.attempt.startedAt,
                  duration_ms: f.attempt.durationMs,
                  response_status: f.attempt.responseStatus,
                  error: f.attempt.error
                }))
              )
              const record = untransformed<{ id: string; status: string; endpoint_deleted: boolean }>`
              SELECT * FROM webhook_finish_attempts(${input}::json, ${now})`
              const retries = finished.filter((f) => f.next.status === "pending")
              // Deliveries, delivered or given up: one statement, nothing to guard.
              if (retries.length === 0) return (yield* record).map((r) => r.id)
              return yield* sql.withTransaction(
                Effect.gen(function* () {
                  yield* pendingGuard(retries.map((f) => f.claim))
                  const rows = yield* record
                  // A retry of an endpoint deleted meanwhile goes with the endpoint's other pending deliveries.
                  const orphaned = new Set(
                    rows.filter((r) => r.status === "pending" && r.endpoint_deleted).map((r) => r.id)
                  )
                  if (orphaned.size > 0) {
                    const claims = retries.map((f) => f.claim).filter((c) => orphaned.has(c.id))
                    yield* dropPending(
                      sql`(d.partner_id, d.id) IN (SELECT * FROM unnest(${claims.map((c) => c.partnerId)}::text[], ${claims.map((c) => c.id)}::uuid[]))`
                    )
                  }
                  return rows.map((r) => r.id)
                })
              )
            }).pipe(Effect.mapError(storeError("finishAttempts"))),

      dropExpiredSecrets: (now) =>
        // The partial index of migration 0009 holds only endpoints with a previous secret (inside
        // their window, or just past it until this runs), so the sweep's usual answer, none, reads nothing.
        sql<{ n: number }>`
        WITH wiped AS (
          UPDATE webhook_endpoints SET previous_secret = NULL, previous_secret_valid_until = NULL
          WHERE previous_secret IS NOT NULL AND previous_secret_valid_until <= ${now}
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM wiped`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.mapError(storeError("dropExpiredSecrets"))
        ),

      purgeDeletedEndpoints: (now) =>
        Effect.gen(function* () {
          // Nearly always none: only a deletion in progress or a host that stopped mid-deletion
          // leaves one (migration 0010's partial index holds just those). One a writer still holds
          // is skipped, not waited for: the sweep runs in the worker's loop, which must not queue
          // behind a partner's transaction. SKIP LOCKED already in the listing, so that held ones
          // cannot fill the batch and keep the rest waiting.
          const waiting = yield* sql<{ partnerId: PartnerId; id: string }>`SELECT partner_id, id FROM webhook_endpoints
          WHERE purge_pending AND deleted_at <= ${now} ORDER BY deleted_at LIMIT ${PURGES_PER_SWEEP} FOR UPDATE SKIP LOCKED`
          let purged = 0
          for (const endpoint of waiting) if (yield* purgeIfHeld(endpoint.partnerId, endpoint.id, true)) purged++
          return purged
        }).pipe(Effect.mapError(storeError("purgeDeletedEndpoints"))),

      expireLeases: (now) =>
        sql<{ n: number }>`
        WITH x AS (
          UPDATE webhook_deliveries SET status = 'uncertain', lease_until = NULL, claim_token = NULL, updated_at = ${now}
          WHERE status = 'delivering' AND lease_until <= ${now}
          RETURNING partner_id, id, attempts
        ), a AS (
          INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error)
          SELECT partner_id, id, attempts, ${now}, 0, NULL, 'outcome unknown: the worker stopped mid-request' FROM x
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM x`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.mapError(storeError("expireLeases"))
        ),

      // @effect/sql provides the transaction's connection to the fibers inside withTransaction.
      insideOpenTransaction: Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isSome),

      nextWakeAt: () =>
        sql<{ at: number | null }>`
        SELECT least(
          -- The due index in its order, stopping at the first delivery the claim would take (the
          -- claim's own view, migration 0015): a min() over a join read every pending delivery.
          (SELECT d.next_attempt_at FROM webhook_claimable_deliveries d ORDER BY d.next_attempt_at LIMIT 1),
          (SELECT min(lease_until) FROM webhook_deliveries WHERE status = 'delivering'),
          (SELECT min(previous_secret_valid_until) FROM webhook_endpoints WHERE previous_secret IS NOT NULL)
        )::bigint AS at`.pipe(
          Effect.map((rows) => rows[0]?.at ?? undefined),
          Effect.mapError(storeError("nextWakeAt"))
        ),

      // What the claim would take, by the two halves of its view (migration 0015): from the due
      // index, so a scrape reads only what waits, counted per endpoint and each endpoint checked
      // once; through the view, which checks the endpoint per delivery, a large backlog costs
      // several times more (docs/decisions.md).
      dueBacklog: (now) =>
        sql<{ n: number; oldest: number | null }>`
        SELECT coalesce(sum(g.n), 0)::int AS n, min(g.oldest)::bigint AS oldest
        FROM (
          SELECT d.partner_id, d.endpoint_id, count(*) AS n, min(d.next_attempt_at) AS oldest FROM webhook_deliveries d
          WHERE webhook_delivery_waiting(d) AND d.next_attempt_at <= ${now}
          GROUP BY d.partner_id, d.endpoint_id
        ) g
        JOIN webhook_endpoints e ON e.partner_id = g.partner_id AND e.id = g.endpoint_id
        WHERE webhook_endpoint_open(e)`.pipe(
          Effect.map((rows) => ({ count: rows[0]?.n ?? 0, oldestDueAt: rows[0]?.oldest ?? undefined })),
          Effect.mapError(storeError("dueBacklog"))
        ),

      listDeliveries: (partnerId, filter, limit, after) =>
        Effect.gen(function* () {
          const conditions = [sql`d.partner_id = ${partnerId}`]
          if (filter.endpointId !== undefined) conditions.push(sql`d.endpoint_id = ${filter.endpointId}::uuid`)
          if (filter.status !== undefined) conditions.push(sql`d.status = ${filter.status}`)
          if (after !== undefined) conditions.push(sql`(d.created_at, d.id) < (${after.createdAt}, ${after.id}::uuid)`)
          const rows =
            yield* sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries d WHERE ${sql.and(conditions)}
          ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit + 1}`
          const page = rows.slice(0, limit).map(deliveryFromRow)
          const last = page[page.length - 1]
          return {
            deliveries: page,
            next: rows.length > limit && last !== undefined ? { createdAt: last.createdAt, id: last.id } : null
          }
        }).pipe(Effect.mapError(storeError("listDeliveries"))),

      getDelivery: (partnerId, id) =>
        sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries d WHERE d.partner_id = ${partnerId} AND d.id = ${id}::uuid`.pipe(
          Effect.map((rows) => (rows[0] === undefined ? undefined : deliveryFromRow(rows[0]))),
          Effect.mapError(storeError("getDelivery"))
        ),

      updateDelivery: (partnerId, id, rule, now) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              // The endpoint before the delivery, the order a deletion takes them in; a delivery
              // never changes endpoint, so reading which one unlocked is safe.
              const [target] = yield* sql<{
                endpointId: string
              }>`SELECT endpoint_id FROM webhook_deliveries WHERE partner_id = ${partnerId} AND id = ${id}::uuid`
              if (target === undefined) return undefined
              yield* pendingGuard([{ partnerId, endpointId: target.endpointId }])
              const [locked] = yield* sql<{
                id: string
              }>`SELECT id FROM webhook_deliveries WHERE partner_id = ${partnerId} AND id = ${id}::uuid FOR UPDATE`
              if (locked === undefined) return undefined
              const [row] = yield* sql<DeliveryRow & { endpointState: "active" | "inactive" | "deleted" }>`
                  SELECT ${deliveryColumns},
                    CASE WHEN e.id IS NULL OR e.deleted_at IS NOT NULL THEN 'deleted' WHEN e.active THEN 'active' ELSE 'inactive' END AS endpoint_state
                  FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.partner_id = d.partner_id AND e.id = d.endpoint_id
                  WHERE d.partner_id = ${partnerId} AND d.id = ${id}::uuid`
              if (row === undefined) return undefined
              const delivery = deliveryFromRow(row)
              const decided = rule({ delivery, endpoint: row.endpointState })
              if (Either.isLeft(decided)) return Either.left(decided.left)
              const s = decided.right
              yield* sql`UPDATE webhook_deliveries SET status = ${s.status}, attempts = ${s.attempts}, next_attempt_at = ${s.nextAttemptAt},
                  lease_until = ${s.leaseUntil}, claim_token = NULL, updated_at = ${now}
                  WHERE partner_id = ${partnerId} AND id = ${id}::uuid`
              if (s.status === "pending" && notifyInTransaction)
                yield* sql`SELECT pg_notify(${WEBHOOK_NOTIFY_CHANNEL}, ${notifyPayload})`
              return Either.right<DeliveryRecord>({ ...delivery, ...s, updatedAt: now })
            })
          )
          .pipe(Effect.mapError(storeError("updateDelivery"))),

      recoverDeliveries: (partnerId, endpointId, window, limit, rules, now) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              // The endpoint first, as a replay and a deletion take it (pendingGuard): the
              // requeued deliveries cannot outlive a concurrent deletion as pending ones.
              const [endpointRow] = yield* sql<{ active: boolean; deleted: boolean }>`
                SELECT active, deleted_at IS NOT NULL AS deleted FROM webhook_endpoints
                WHERE partner_id = ${partnerId} AND id = ${endpointId}::uuid FOR KEY SHARE`
              if (endpointRow === undefined) return undefined
              const endpoint: EndpointCondition = endpointRow.deleted
                ? "deleted"
                : endpointRow.active
                  ? "active"
                  : "inactive"
              const open = rules.endpoint(endpoint)
              if (Either.isLeft(open)) return Either.left(open.left)
              // The window's failed deliveries, through the partial index of migration 0018.
              const inWindow = sql`d.partner_id = ${partnerId} AND d.endpoint_id = ${endpointId}::uuid
                AND d.status IN ('dead_lettered', 'uncertain') AND d.created_at >= ${window.since} AND d.created_at < ${window.until}`
              // The state alone: the rule reads nothing else, and 10,000 rows' attempt histories cost.
              const rows = yield* sql<DeliveryState & { id: string }>`SELECT d.id, d.status, d.attempts,
                d.next_attempt_at, d.lease_until FROM webhook_deliveries d WHERE ${inWindow}
                ORDER BY d.created_at, d.id LIMIT ${limit} FOR UPDATE`
              const decided = rows.flatMap(({ id, ...delivery }) => {
                const state = rules.delivery({ delivery, endpoint })
                return Either.isRight(state) ? [{ id, ...state.right }] : []
              })
              if (decided.length > 0) {
                yield* sql`UPDATE webhook_deliveries d SET status = u.status, attempts = u.attempts,
                  next_attempt_at = u.next_attempt_at, lease_until = u.lease_until, claim_token = NULL,
                  endpoint_paused = ${endpoint === "inactive"}, updated_at = ${now}
                  FROM unnest(${decided.map((s) => s.id)}::uuid[], ${decided.map((s) => s.status)}::text[],
                    ${decided.map((s) => s.attempts)}::int[], ${decided.map((s) => s.nextAttemptAt)}::bigint[],
                    ${decided.map((s) => s.leaseUntil)}::bigint[]) AS u(id, status, attempts, next_attempt_at, lease_until)
                  WHERE d.partner_id = ${partnerId} AND d.id = u.id`
                if (notifyInTransaction && decided.some((s) => s.status === "pending"))
                  yield* sql`SELECT pg_notify(${WEBHOOK_NOTIFY_CHANNEL}, ${notifyPayload})`
              }
              const [left] = yield* sql<{
                n: number
              }>`SELECT count(*)::int AS n FROM webhook_deliveries d WHERE ${inWindow}`
              return Either.right({ requeued: decided.length, remaining: left?.n ?? 0 })
            })
          )
          .pipe(Effect.mapError(storeError("recoverDeliveries"))),

      deleteExpiredDeliveries: (before, limit) =>
        untransformed<{ n: number }>`SELECT webhook_delete_expired_deliveries(${before}, ${limit}) AS n`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.mapError(storeError("deleteExpiredDeliveries"))
        ),

      deleteExpiredEvents: (before, limit) =>
        untransformed<{ n: number }>`SELECT webhook_delete_expired_events(${before}, ${limit}) AS n`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.mapError(storeError("deleteExpiredEvents"))
        ),

      oldestEventAt: () =>
        sql<{ at: number | null }>`SELECT min(occurred_at)::bigint AS at FROM webhook_events`.pipe(
          Effect.map((rows) => rows[0]?.at ?? undefined),
          Effect.mapError(storeError("oldestEventAt"))
        )
    }
    return store
  })

export const makeSqlWebhookStore = makeSqlWebhookStoreWith({})

export const sqlWebhookStoreLayer = (
  options: SqlWebhookStoreOptions
): Layer.Layer<WebhookStore | EventStore, never, SqlClient.SqlClient> =>
  Layer.effectContext(
    Effect.map(makeSqlWebhookStoreWith(options), (store) =>
      Context.make(WebhookStore, store).pipe(Context.add(EventStore, store))
    )
  )

/** Provides the webhook store and the outbox's event store, which it implements too. */
export const SqlWebhookStore: Layer.Layer<WebhookStore | EventStore, never, SqlClient.SqlClient> = sqlWebhookStoreLayer(
  {}
)
