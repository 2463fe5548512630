/** The audited ledger (credits, grants, alerts) on memory, PGlite, and PostgreSQL when DATABASE_URL is set. */
import { MemoryLedgerStore, SqlAuditStore, SqlLedgerStore, TestDatabase } from "@frank/adapters"
import { MemoryAuditStore } from "@frank/core/testing"
import { Layer } from "effect"
import { auditedLedgerContract } from "./contract/auditedLedgerContract.js"

auditedLedgerContract("memory", Layer.merge(MemoryLedgerStore.layer, MemoryAuditStore), { transactional: false })
auditedLedgerContract(
  "PGlite",
  Layer.merge(SqlLedgerStore.layer, SqlAuditStore.layer).pipe(Layer.provide(TestDatabase.layerPglite())),
  { transactional: true }
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  auditedLedgerContract(
    "PostgreSQL",
    Layer.merge(SqlLedgerStore.layer, SqlAuditStore.layer).pipe(Layer.provide(TestDatabase.layerPostgres(url))),
    { transactional: true }
  )
