/**
 * The top-up contract on every engine: memory, embedded PGlite, and PostgreSQL when DATABASE_URL
 * is set (as in CI). On SQL the ledger, the outbox, the payments and the sandbox acquirer share
 * one database, as in the host, so a confirmation's status, credit and event commit together.
 */
import {
  MemorySandboxAcquirerStore,
  pgliteTestDatabase,
  postgresTestDatabase,
  SqlLedgerStore,
  SqlPaymentStore,
  SqlSandboxAcquirerStore,
  SqlWebhookStore
} from "@frank/adapters"
import { MemoryLedgerStore, MemoryPaymentStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { paymentsContract } from "./contract/paymentsContract.js"

const sqlStores = Layer.mergeAll(SqlLedgerStore, SqlWebhookStore, SqlPaymentStore, SqlSandboxAcquirerStore)

paymentsContract(
  "memory",
  Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore, MemoryPaymentStore, MemorySandboxAcquirerStore)
)
paymentsContract("PGlite", sqlStores.pipe(Layer.provide(pgliteTestDatabase())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  paymentsContract("PostgreSQL", sqlStores.pipe(Layer.provide(postgresTestDatabase(url))))
