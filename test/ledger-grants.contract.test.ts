/**
 * Expiring bonus grants and balance alerts on every engine: memory, embedded PGlite, and
 * PostgreSQL when DATABASE_URL is set (as in CI).
 */
import { MemoryLedgerStore, SqlLedgerStore, TestDatabase } from "@frank/adapters"
import { Layer } from "effect"
import { grantsAlertsContract } from "./contract/grantsAlertsContract.js"

grantsAlertsContract("memory", MemoryLedgerStore.layer)
grantsAlertsContract("PGlite", SqlLedgerStore.layer.pipe(Layer.provide(TestDatabase.layerPglite())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  grantsAlertsContract("PostgreSQL", SqlLedgerStore.layer.pipe(Layer.provide(TestDatabase.layerPostgres(url))))
