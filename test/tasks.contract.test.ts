/**
 * The generation-task contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI). On SQL the ledger, the webhook outbox and the task store share
 * one database, as in the host, so a task change, its ledger movement and its events commit together.
 */
import { SqlLedgerStore, SqlTaskStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { MemoryLedgerStore, MemoryTaskStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { taskExpiryContract } from "./contract/taskExpiryContract.js"
import { tasksContract } from "./contract/tasksContract.js"

const memory = () => Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer, MemoryTaskStore)
tasksContract("memory", memory())
taskExpiryContract("memory", memory())
const pglite = () =>
  Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer, SqlTaskStore.layer).pipe(
    Layer.provide(TestDatabase.layerPglite())
  )
tasksContract("PGlite", pglite())
taskExpiryContract("PGlite", pglite())
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) {
  const postgres = () =>
    Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer, SqlTaskStore.layer).pipe(
      Layer.provide(TestDatabase.layerPostgres(url, { maxConnections: 10 }))
    )
  tasksContract("PostgreSQL", postgres())
  // Real concurrency: reports and sweeps on connections of their own.
  taskExpiryContract("PostgreSQL", postgres(), { racingTasks: 40 })
}
