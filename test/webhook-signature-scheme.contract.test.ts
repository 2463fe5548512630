/**
 * The endpoint's signature scheme on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI); over HTTP in-process and through delivered requests.
 */
import { SqlLedgerStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { Layer } from "effect"
import { signatureSchemeApiContract } from "./contract/signatureSchemeApiContract.js"
import { signatureSchemeDeliveryContract } from "./contract/signatureSchemeDeliveryContract.js"

const sqlOn = (database: Layer.Layer<TestDatabase.TestDatabase, unknown>) =>
  Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(database))

const memory = () => Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer)
signatureSchemeApiContract("memory", memory())
signatureSchemeDeliveryContract("memory", memory())
signatureSchemeApiContract("PGlite", sqlOn(TestDatabase.layerPglite()))
signatureSchemeDeliveryContract("PGlite", sqlOn(TestDatabase.layerPglite()))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) {
  signatureSchemeApiContract("PostgreSQL", sqlOn(TestDatabase.layerPostgres(url)))
  signatureSchemeDeliveryContract("PostgreSQL", sqlOn(TestDatabase.layerPostgres(url)))
}
