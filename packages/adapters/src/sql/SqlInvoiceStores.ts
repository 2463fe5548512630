/**
 * Company profiles and legal invoices on SQL (PostgreSQL and PGlite).
 *
 * - A profile save is one conditional statement: INSERT … ON CONFLICT DO NOTHING for the first
 *   save, UPDATE … WHERE revision = expected after it. Under READ COMMITTED a concurrent save of
 *   the same revision waits for the row, re-checks the condition and matches nothing, so exactly
 *   one of two racing saves wins.
 * - `modify` locks the invoice row (SELECT … FOR UPDATE) in a transaction and runs the step in
 *   it; the ledger and outbox writes the step makes join that transaction (nested
 *   `withTransaction` becomes a savepoint on the same connection), so the status change, the
 *   credit and the events commit or roll back together.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Errors, type Ids, Invoices } from "@frank/core"
import { Effect, Layer } from "effect"
import { sqlFailures } from "./sqlFailures.js"
import {
  CompanyProfileStore,
  type CompanyProfileStoreShape,
  InvoiceStore,
  type InvoiceStoreShape
} from "@frank/core/stores"

const storeError = Errors.storeErrorFor("invoice store")

const PROFILE_COLUMNS =
  "partner_id, revision, company_name, inn, kpp, ogrn, legal_address, postal_address, email, phone, created_at, updated_at"

export const makeCompanyProfileStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(PROFILE_COLUMNS)

  const read = (partnerId: Ids.PartnerId) =>
    Effect.map(
      sql<Invoices.CompanyProfile>`SELECT ${columns} FROM company_profiles WHERE partner_id = ${partnerId}`,
      (rows) => rows[0]
    )

  const store: CompanyProfileStoreShape = {
    get: (partnerId) => read(partnerId).pipe(Effect.mapError(storeError("profile read"))),
    save: (partnerId, requisites, expectedRevision, now) =>
      Effect.gen(function* () {
        const r = Invoices.requisitesOf(requisites)
        const written =
          expectedRevision === 0
            ? yield* sql<Invoices.CompanyProfile>`INSERT INTO company_profiles ${sql.insert({ partnerId, revision: 1, ...r, createdAt: now, updatedAt: now })}
                ON CONFLICT (partner_id) DO NOTHING RETURNING ${columns}`
            : yield* sql<Invoices.CompanyProfile>`UPDATE company_profiles SET ${sql.update({ ...r, updatedAt: now })}, revision = revision + 1
                WHERE partner_id = ${partnerId} AND revision = ${expectedRevision} RETURNING ${columns}`
        const saved = written[0]
        if (saved !== undefined) return { _tag: "Saved", profile: saved } as const
        const current = yield* read(partnerId)
        return { _tag: "Stale", currentRevision: current?.revision ?? 0 } as const
      }).pipe(Effect.mapError(storeError("profile save")))
  }
  return store
})

const INVOICE_COLUMNS = `partner_id, id::text AS id, number, status, amount_rub, comment, profile_revision, payer, bank_invoice_id,
  created_at, updated_at, due_at, credited_at, transaction_id`

interface InvoiceRow extends Omit<Invoices.Invoice, "payer"> {
  /** JSON text of the requisites (text, not jsonb: the name transform must not touch its keys). */
  readonly payer: string
}

const fromRow = (row: InvoiceRow): Invoices.Invoice => ({
  ...row,
  payer: JSON.parse(row.payer) as Invoices.CompanyRequisites
})

export const makeInvoiceStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(INVOICE_COLUMNS)

  const select = (partnerId: Ids.PartnerId, id: string, forUpdate: boolean) =>
    Effect.map(
      sql<InvoiceRow>`SELECT ${columns} FROM legal_invoices WHERE partner_id = ${partnerId} AND id = ${id}::uuid${forUpdate ? sql` FOR UPDATE` : sql``}`,
      (rows) => (rows[0] === undefined ? undefined : fromRow(rows[0]))
    )

  const store: InvoiceStoreShape = {
    insert: (i) =>
      sql`INSERT INTO legal_invoices ${sql.insert({
        partnerId: i.partnerId,
        id: i.id,
        number: i.number,
        status: i.status,
        amountRub: i.amountRub,
        comment: i.comment,
        profileRevision: i.profileRevision,
        payer: JSON.stringify(Invoices.requisitesOf(i.payer)),
        bankInvoiceId: i.bankInvoiceId,
        createdAt: i.createdAt,
        updatedAt: i.updatedAt,
        dueAt: i.dueAt,
        creditedAt: i.creditedAt,
        transactionId: i.transactionId
      })}`.pipe(Effect.asVoid, Effect.mapError(storeError("insert"))),

    get: (partnerId, id) => select(partnerId, id, false).pipe(Effect.mapError(storeError("read"))),

    list: (partnerId, offset, limit) =>
      Effect.gen(function* () {
        const rows = yield* sql<InvoiceRow>`SELECT ${columns} FROM legal_invoices WHERE partner_id = ${partnerId}
          ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
        const [count] = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM legal_invoices WHERE partner_id = ${partnerId}`
        return { items: rows.map(fromRow), total: count?.n ?? 0 }
      }).pipe(Effect.mapError(storeError("list"))),

    modify: (partnerId, id, step) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const current = yield* select(partnerId, id, true)
            if (current === undefined) return undefined
            const decided = yield* step(current)
            const next = decided.write
            if (next !== undefined)
              yield* sql`UPDATE legal_invoices SET status = ${next.status}, updated_at = ${next.updatedAt},
                    credited_at = ${next.creditedAt}, transaction_id = ${next.transactionId}
                    WHERE partner_id = ${partnerId} AND id = ${id}::uuid`
            return decided.result
          })
        )
        .pipe(Effect.mapError(sqlFailures(storeError("status change"))))
  }
  return store
})

export const companyProfileStoreLayer: Layer.Layer<CompanyProfileStore, never, SqlClient.SqlClient> = Layer.effect(
  CompanyProfileStore,
  makeCompanyProfileStore
)
export const invoiceStoreLayer: Layer.Layer<InvoiceStore, never, SqlClient.SqlClient> = Layer.effect(
  InvoiceStore,
  makeInvoiceStore
)
/** Both invoice stores. */
export const layer = Layer.mergeAll(companyProfileStoreLayer, invoiceStoreLayer)
