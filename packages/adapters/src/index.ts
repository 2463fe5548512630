export * from "./memory/MemoryLedgerStore.js"
export * from "./sql/index.js"
export * from "./memory/MemoryAccessStores.js"
export * from "./memory/MemoryRateLimitStore.js"
