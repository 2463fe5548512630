/**
 * The webhook contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI). On SQL, the ledger and the webhook store share one database,
 * as in the host, so ledger events go through the SQL outbox in the movement's transaction.
 */
import { pgliteTestDatabase, postgresTestDatabase, SqlLedgerStore, SqlWebhookStore } from "@frank/adapters"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { webhookContract } from "./contract/webhookContract.js"

webhookContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore))
webhookContract("PGlite", Layer.mergeAll(SqlLedgerStore, SqlWebhookStore).pipe(Layer.provide(pgliteTestDatabase())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  webhookContract(
    "PostgreSQL",
    Layer.mergeAll(SqlLedgerStore, SqlWebhookStore).pipe(Layer.provide(postgresTestDatabase(url)))
  )
