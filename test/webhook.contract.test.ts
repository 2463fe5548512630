/**
 * The webhook contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI). On SQL, the ledger and the webhook store share one database,
 * as in the host, so ledger events go through the SQL outbox in the movement's transaction.
 */
import { SqlLedgerStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { webhookContract } from "./contract/webhookContract.js"

webhookContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))
webhookContract(
  "PGlite",
  Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(TestDatabase.layerPglite()))
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  webhookContract(
    "PostgreSQL",
    Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(TestDatabase.layerPostgres(url)))
  )
