/** The audit log contract on memory, PGlite, and PostgreSQL when DATABASE_URL is set. */
import { MemoryAccessStores, SqlAccessStores, SqlAuditStore, TestDatabase } from "@frank/adapters"
import { MemoryAuditStore } from "@frank/core/testing"
import { Layer } from "effect"
import { auditContract } from "./contract/auditContract.js"

auditContract("memory", Layer.merge(MemoryAuditStore, MemoryAccessStores.layer), { transactional: false })
auditContract(
  "PGlite",
  Layer.merge(SqlAuditStore.layer, SqlAccessStores.layer).pipe(Layer.provide(TestDatabase.layerPglite())),
  { transactional: true }
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  auditContract(
    "PostgreSQL",
    Layer.merge(SqlAuditStore.layer, SqlAccessStores.layer).pipe(Layer.provide(TestDatabase.layerPostgres(url))),
    { transactional: true }
  )
