/**
 * The webhook portal's reads on every engine: memory, embedded PGlite, and PostgreSQL when DATABASE_URL is set.
 */
import { SqlLedgerStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { webhookPortalContract } from "./contract/webhookPortalContract.js"

webhookPortalContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))
webhookPortalContract(
  "PGlite",
  Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(TestDatabase.layerPglite()))
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  webhookPortalContract(
    "PostgreSQL",
    Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(TestDatabase.layerPostgres(url)))
  )
