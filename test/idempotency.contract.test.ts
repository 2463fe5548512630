/** The idempotency contract on memory, PGlite, and PostgreSQL when DATABASE_URL is set. */
import {
  MemoryAccessStores,
  MemoryIdempotencyStore,
  SqlAccessStores,
  SqlIdempotencyStore,
  TestDatabase
} from "@frank/adapters"
import { Layer } from "effect"
import { idempotencyContract } from "./contract/idempotencyContract.js"

idempotencyContract(
  "memory",
  { transactional: false, concurrentTransactions: true },
  Layer.merge(MemoryAccessStores.layer, MemoryIdempotencyStore.layer)
)
idempotencyContract(
  "PGlite",
  { transactional: true, concurrentTransactions: false },
  Layer.merge(SqlAccessStores.layer, SqlIdempotencyStore.layer).pipe(Layer.provide(TestDatabase.layerPglite()))
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  idempotencyContract(
    "PostgreSQL",
    { transactional: true, concurrentTransactions: true },
    Layer.merge(SqlAccessStores.layer, SqlIdempotencyStore.layer).pipe(Layer.provide(TestDatabase.layerPostgres(url)))
  )
