/**
 * The endpoint's signature scheme on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI); over HTTP in-process and through delivered requests.
 */
import {
  pgliteTestDatabase,
  postgresTestDatabase,
  SqlLedgerStore,
  SqlWebhookStore,
  type TestDatabase
} from "@frank/adapters"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { signatureSchemeApiContract } from "./contract/signatureSchemeApiContract.js"
import { signatureSchemeDeliveryContract } from "./contract/signatureSchemeDeliveryContract.js"

const sqlOn = (database: Layer.Layer<TestDatabase, unknown>) =>
  Layer.mergeAll(SqlLedgerStore, SqlWebhookStore).pipe(Layer.provide(database))

const memory = () => Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore)
signatureSchemeApiContract("memory", memory())
signatureSchemeDeliveryContract("memory", memory())
signatureSchemeApiContract("PGlite", sqlOn(pgliteTestDatabase()))
signatureSchemeDeliveryContract("PGlite", sqlOn(pgliteTestDatabase()))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) {
  signatureSchemeApiContract("PostgreSQL", sqlOn(postgresTestDatabase(url)))
  signatureSchemeDeliveryContract("PostgreSQL", sqlOn(postgresTestDatabase(url)))
}
