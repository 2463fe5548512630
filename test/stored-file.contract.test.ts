/**
 * The stored-file store contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI).
 */
import { pgliteTestDatabase, postgresTestDatabase, SqlStoredFileStore } from "@frank/adapters"
import { MemoryStoredFileStore } from "@frank/core/testing"
import { Layer } from "effect"
import { storedFileContract } from "./contract/storedFileContract.js"

storedFileContract("memory", MemoryStoredFileStore)
storedFileContract("PGlite", SqlStoredFileStore.pipe(Layer.provide(pgliteTestDatabase())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  storedFileContract("PostgreSQL", SqlStoredFileStore.pipe(Layer.provide(postgresTestDatabase(url))))
