/**
 * Top-up payments, and the sandbox acquirer's own records.
 *
 * - `payments`: one row per payment; the partner's Idempotency-Key is unique per partner, which
 *   is what makes concurrent link requests with one key store one payment. `seq` orders the
 *   history by insertion (several payments can share a millisecond). Notifications name a
 *   payment by id only, hence the index on `id` alone (not unique on its own: the key leads with
 *   partner_id; when distributed by partner this lookup fans out, and it is rare).
 * - `sandbox_acquirer_payments`: what the sandbox acquirer, an outside system in production
 *   terms, knows about the payments it was asked to create (order id = our payment id). Kept
 *   apart from `payments` so the sandbox can only talk to the engine through notifications.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE payments (
      partner_id text NOT NULL,
      id uuid NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      amount_rub integer NOT NULL CHECK (amount_rub BETWEEN 1 AND 100000),
      description text CHECK (char_length(description) <= 140),
      idempotency_key text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 128),
      status text NOT NULL CHECK (status IN ('pending', 'authorized', 'confirmed', 'canceled', 'rejected', 'failed')),
      provider_payment_id text,
      payment_url text,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      PRIMARY KEY (partner_id, id),
      UNIQUE (partner_id, idempotency_key)
    )`
  yield* sql`CREATE INDEX payments_newest ON payments (partner_id, seq DESC)`
  yield* sql`CREATE INDEX payments_by_id ON payments (id)`
  yield* sql`
    CREATE TABLE sandbox_acquirer_payments (
      partner_id text NOT NULL,
      order_id uuid NOT NULL,
      id text NOT NULL,
      amount_rub integer NOT NULL,
      description text,
      status text NOT NULL CHECK (status IN ('pending', 'authorized', 'confirmed', 'canceled', 'rejected', 'failed')),
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      PRIMARY KEY (partner_id, order_id)
    )`
  yield* sql`CREATE INDEX sandbox_acquirer_payments_by_order ON sandbox_acquirer_payments (order_id)`
})
