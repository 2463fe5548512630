/**
 * Per-endpoint delivery rate on every store: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI).
 */
import { SqlLedgerStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { expect, it } from "@effect/vitest"
import { Layer } from "effect"
import { deliveryRateApiContract, openApiRate } from "./contract/deliveryRateApiContract.js"
import { deliveryRateContract } from "./contract/deliveryRateContract.js"

const sqlOn = (database: Layer.Layer<TestDatabase.TestDatabase, unknown>) =>
  Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(database))

deliveryRateContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))
deliveryRateContract("PGlite", sqlOn(TestDatabase.layerPglite()))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) deliveryRateContract("PostgreSQL", sqlOn(TestDatabase.layerPostgres(url)))

deliveryRateApiContract("memory", Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))
deliveryRateApiContract("PGlite", sqlOn(TestDatabase.layerPglite()))
if (url !== undefined && url.length > 0) deliveryRateApiContract("PostgreSQL", sqlOn(TestDatabase.layerPostgres(url)))

it("the OpenAPI document describes rateLimitPerSecond on the endpoint and both requests", () => {
  for (const description of openApiRate()) expect(description).toContain("WEBHOOK_RATE_LIMIT_INVALID")
})
