/**
 * The endpoint-health contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI), with the ledger and webhook stores on one database as in the host.
 */
import { SqlLedgerStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { endpointHealthContract } from "./contract/endpointHealthContract.js"

endpointHealthContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))
endpointHealthContract(
  "PGlite",
  Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(TestDatabase.layerPglite()))
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  endpointHealthContract(
    "PostgreSQL",
    Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(TestDatabase.layerPostgres(url)))
  )
