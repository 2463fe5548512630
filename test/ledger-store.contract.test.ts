/**
 * The ledger storage contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI).
 */
import { MemoryLedgerStore, SqlLedgerStore, TestDatabase } from "@frank/adapters"
import { Layer } from "effect"
import { ledgerStoreContract } from "./contract/ledgerStoreContract.js"

ledgerStoreContract("memory", MemoryLedgerStore.layer)
ledgerStoreContract("PGlite", SqlLedgerStore.layer.pipe(Layer.provide(TestDatabase.layerPglite())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  ledgerStoreContract("PostgreSQL", SqlLedgerStore.layer.pipe(Layer.provide(TestDatabase.layerPostgres(url))))
