/**
 * The legal-invoice contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI). On SQL the ledger, webhook and invoice stores share one
 * database, as in the host, so a status change, its credit and its events commit together.
 */
import { SqlInvoiceStores, SqlLedgerStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { MemoryInvoiceStores, MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { invoicesContract } from "./contract/invoicesContract.js"

const sqlStores = Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer, SqlInvoiceStores.layer)

invoicesContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer, MemoryInvoiceStores), {
  transactional: false
})
invoicesContract("PGlite", sqlStores.pipe(Layer.provide(TestDatabase.layerPglite())), { transactional: true })
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  invoicesContract("PostgreSQL", sqlStores.pipe(Layer.provide(TestDatabase.layerPostgres(url))), {
    transactional: true
  })
