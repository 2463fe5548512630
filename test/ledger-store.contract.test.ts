/**
 * The ledger storage contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI).
 */
import { MemoryLedgerStore, pgliteTestDatabase, postgresTestDatabase, SqlLedgerStore } from "@frank/adapters"
import { Layer } from "effect"
import { ledgerStoreContract } from "./contract/ledgerStoreContract.js"

ledgerStoreContract("memory", MemoryLedgerStore)
ledgerStoreContract("PGlite", SqlLedgerStore.pipe(Layer.provide(pgliteTestDatabase())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  ledgerStoreContract("PostgreSQL", SqlLedgerStore.pipe(Layer.provide(postgresTestDatabase(url))))
