/**
 * Bulk recovery on every engine: memory, embedded PGlite, and PostgreSQL when DATABASE_URL is set.
 */
import { pgliteTestDatabase, postgresTestDatabase, SqlLedgerStore, SqlWebhookStore } from "@frank/adapters"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { webhookRecoveryContract } from "./contract/webhookRecoveryContract.js"

webhookRecoveryContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore))
webhookRecoveryContract(
  "PGlite",
  Layer.mergeAll(SqlLedgerStore, SqlWebhookStore).pipe(Layer.provide(pgliteTestDatabase()))
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  webhookRecoveryContract(
    "PostgreSQL",
    Layer.mergeAll(SqlLedgerStore, SqlWebhookStore).pipe(Layer.provide(postgresTestDatabase(url)))
  )
