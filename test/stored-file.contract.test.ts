/**
 * The stored-file store contract on every engine: memory, embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set (as in CI).
 */
import { SqlStoredFileStore, TestDatabase } from "@frank/adapters"
import { MemoryStoredFileStore } from "@frank/core/testing"
import { Layer } from "effect"
import { storedFileContract } from "./contract/storedFileContract.js"

storedFileContract("memory", MemoryStoredFileStore)
storedFileContract("PGlite", SqlStoredFileStore.layer.pipe(Layer.provide(TestDatabase.layerPglite())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  storedFileContract("PostgreSQL", SqlStoredFileStore.layer.pipe(Layer.provide(TestDatabase.layerPostgres(url))))
