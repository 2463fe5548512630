/**
 * The payment store on SQL (PostgreSQL and PGlite).
 *
 * - One payment per (partner, Idempotency-Key): `INSERT … ON CONFLICT DO NOTHING` waits for a
 *   racing insert of the same key to commit and then inserts nothing; the following SELECT (a new
 *   snapshot under READ COMMITTED) reads the winner. No lock is held across the acquirer call.
 * - `update` runs the change under `SELECT … FOR UPDATE` of the payment row in a transaction the
 *   change's own statements join (the ledger store nests a savepoint), so a status and the credit
 *   it causes commit together. Lock order is always payment row → ledger account, so it cannot
 *   deadlock against other movements, which lock the account only.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Errors, type Ids, type Payments } from "@frank/core"
import { Effect, Layer } from "effect"
import { sqlFailures } from "./sqlFailures.js"
import { PaymentStore, type PaymentStoreShape } from "@frank/core/stores"

const storeError = Errors.storeErrorFor("payment store")

const COLUMNS =
  "partner_id, id::text AS id, amount_rub, description, idempotency_key, status, provider_payment_id, payment_url, created_at, updated_at"

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(COLUMNS)

  const select = (partnerId: Ids.PartnerId, id: string, forUpdate: boolean) =>
    Effect.map(
      sql<Payments.Payment>`SELECT ${columns} FROM payments WHERE partner_id = ${partnerId} AND id = ${id}::uuid${forUpdate ? sql` FOR UPDATE` : sql``}`,
      (rows) => rows[0]
    )

  const store: PaymentStoreShape = {
    insertOrGet: (p) =>
      Effect.gen(function* () {
        const inserted = yield* sql<Payments.Payment>`INSERT INTO payments ${sql.insert({
          partnerId: p.partnerId,
          id: p.id,
          amountRub: p.amountRub,
          description: p.description,
          idempotencyKey: p.idempotencyKey,
          status: p.status,
          providerPaymentId: p.providerPaymentId,
          paymentUrl: p.paymentUrl,
          createdAt: p.createdAt,
          updatedAt: p.updatedAt
        })} ON CONFLICT (partner_id, idempotency_key) DO NOTHING RETURNING ${columns}`
        if (inserted[0] !== undefined) return { payment: inserted[0], created: true }
        const [existing] = yield* sql<Payments.Payment>`SELECT ${columns} FROM payments
          WHERE partner_id = ${p.partnerId} AND idempotency_key = ${p.idempotencyKey}`
        if (existing === undefined)
          return yield* Effect.dieMessage(`payment store: key ${p.idempotencyKey} conflicted but no payment holds it`)
        return { payment: existing, created: false }
      }).pipe(Effect.mapError(storeError("insertOrGet"))),

    attachProvider: (partnerId, id, provider, now) =>
      Effect.map(
        // coalesce: the first writer wins (a notification may even have recorded the acquirer's id first).
        sql<Payments.Payment>`UPDATE payments SET provider_payment_id = coalesce(provider_payment_id, ${provider.providerPaymentId}),
                payment_url = coalesce(payment_url, ${provider.paymentUrl}), updated_at = ${now}
              WHERE partner_id = ${partnerId} AND id = ${id}::uuid RETURNING ${columns}`,
        (rows) => rows[0]
      ).pipe(Effect.mapError(storeError("attachProvider"))),

    get: (partnerId, id) => select(partnerId, id, false).pipe(Effect.mapError(storeError("get"))),

    locate: (id) =>
      Effect.map(
        sql<{ partnerId: Ids.PartnerId }>`SELECT partner_id FROM payments WHERE id = ${id}::uuid`,
        (rows) => rows[0]?.partnerId
      ).pipe(Effect.mapError(storeError("locate"))),

    listRecent: (partnerId, limit) =>
      sql<Payments.Payment>`SELECT ${columns} FROM payments WHERE partner_id = ${partnerId} ORDER BY seq DESC LIMIT ${limit}`.pipe(
        Effect.mapError(storeError("listRecent"))
      ),

    update: (partnerId, id, change) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const current = yield* select(partnerId, id, true).pipe(Effect.mapError(storeError("update")))
            if (current === undefined) return undefined
            const decided = yield* change(current)
            const n = decided.next
            if (n !== undefined)
              yield* sql`UPDATE payments SET status = ${n.status}, provider_payment_id = ${n.providerPaymentId},
                      payment_url = ${n.paymentUrl}, updated_at = ${n.updatedAt}
                    WHERE partner_id = ${partnerId} AND id = ${id}::uuid`.pipe(Effect.mapError(storeError("update")))
            return decided.result
          })
        )
        // BEGIN and COMMIT themselves may fail.
        .pipe(Effect.mapError(sqlFailures(storeError("update"))))
  }
  return store
})

export const layer: Layer.Layer<PaymentStore, never, SqlClient.SqlClient> = Layer.effect(PaymentStore, make)
