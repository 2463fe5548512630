/**
 * The generation-task contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI). On SQL the ledger, the webhook outbox and the task store share
 * one database, as in the host, so a task change, its ledger movement and its events commit together.
 */
import {
  pgliteTestDatabase,
  postgresTestDatabase,
  SqlLedgerStore,
  SqlTaskStore,
  SqlWebhookStore
} from "@frank/adapters"
import { MemoryLedgerStore, MemoryTaskStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { tasksContract } from "./contract/tasksContract.js"

tasksContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore, MemoryTaskStore))
tasksContract(
  "PGlite",
  Layer.mergeAll(SqlLedgerStore, SqlWebhookStore, SqlTaskStore).pipe(Layer.provide(pgliteTestDatabase()))
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  tasksContract(
    "PostgreSQL",
    Layer.mergeAll(SqlLedgerStore, SqlWebhookStore, SqlTaskStore).pipe(Layer.provide(postgresTestDatabase(url)))
  )
