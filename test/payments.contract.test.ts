/**
 * The top-up contract on every engine: memory, embedded PGlite, and PostgreSQL when DATABASE_URL
 * is set (as in CI). On SQL the ledger, the outbox, the payments and the sandbox acquirer share
 * one database, as in the host, so a confirmation's status, credit and event commit together.
 */
import {
  MemorySandboxAcquirerStore,
  SqlLedgerStore,
  SqlPaymentStore,
  SqlSandboxAcquirerStore,
  SqlWebhookStore,
  TestDatabase
} from "@frank/adapters"
import { MemoryLedgerStore, MemoryPaymentStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { paymentsContract } from "./contract/paymentsContract.js"

const sqlStores = Layer.mergeAll(
  SqlLedgerStore.layer,
  SqlWebhookStore.layer,
  SqlPaymentStore.layer,
  SqlSandboxAcquirerStore.layer
)

paymentsContract(
  "memory",
  Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer, MemoryPaymentStore, MemorySandboxAcquirerStore.layer)
)
paymentsContract("PGlite", sqlStores.pipe(Layer.provide(TestDatabase.layerPglite())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  paymentsContract("PostgreSQL", sqlStores.pipe(Layer.provide(TestDatabase.layerPostgres(url))))
