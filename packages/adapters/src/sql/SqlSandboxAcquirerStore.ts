/**
 * The sandbox acquirer's records on SQL (the host's database). Creation is idempotent by order
 * id (`ON CONFLICT DO NOTHING`, then read the winner); changes run under a row lock.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Errors, type Ids } from "@frank/core"
import { Effect, Layer } from "effect"
import {
  type SandboxPayment,
  SandboxAcquirerStore,
  type SandboxAcquirerStoreShape
} from "../payments/SandboxAcquirerStore.js"

const storeError = Errors.storeErrorFor("sandbox acquirer store")

const COLUMNS = "partner_id, order_id::text AS order_id, id, amount_rub, description, status, created_at, updated_at"

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(COLUMNS)

  const select = (orderId: Ids.PaymentId, forUpdate: boolean) =>
    Effect.map(
      sql<SandboxPayment>`SELECT ${columns} FROM sandbox_acquirer_payments WHERE order_id = ${orderId}::uuid${forUpdate ? sql` FOR UPDATE` : sql``}`,
      (rows) => rows[0]
    )

  const store: SandboxAcquirerStoreShape = {
    open: (p) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO sandbox_acquirer_payments ${sql.insert({ ...p })} ON CONFLICT (partner_id, order_id) DO NOTHING`
        const stored = yield* select(p.orderId, false)
        if (stored === undefined)
          return yield* Effect.dieMessage(`sandbox acquirer store: order ${p.orderId} vanished after insert`)
        return stored
      }).pipe(Effect.mapError(storeError("open"))),
    find: (orderId) => select(orderId, false).pipe(Effect.mapError(storeError("find"))),
    modify: (orderId, change) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const current = yield* select(orderId, true)
            if (current === undefined) return undefined
            const decided = change(current)
            const n = decided.next
            if (n !== undefined)
              yield* sql`UPDATE sandbox_acquirer_payments SET status = ${n.status}, updated_at = ${n.updatedAt}
                    WHERE partner_id = ${n.partnerId} AND order_id = ${orderId}::uuid`
            return decided.result
          })
        )
        .pipe(Effect.mapError(storeError("modify")))
  }
  return store
})

export const layer: Layer.Layer<SandboxAcquirerStore, never, SqlClient.SqlClient> = Layer.effect(
  SandboxAcquirerStore,
  make
)
