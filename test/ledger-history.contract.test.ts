/**
 * The ledger's reads over a history of every movement kind on every engine: memory, embedded
 * PGlite, and PostgreSQL when DATABASE_URL is set (as in CI).
 */
import { MemoryLedgerStore, SqlLedgerStore, TestDatabase } from "@frank/adapters"
import { Layer } from "effect"
import { ledgerHistoryContract } from "./contract/ledgerHistoryContract.js"

ledgerHistoryContract("memory", MemoryLedgerStore.layer)
ledgerHistoryContract("PGlite", SqlLedgerStore.layer.pipe(Layer.provide(TestDatabase.layerPglite())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  ledgerHistoryContract("PostgreSQL", SqlLedgerStore.layer.pipe(Layer.provide(TestDatabase.layerPostgres(url))))
