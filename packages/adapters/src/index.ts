export * from "./memory/MemoryLedgerStore.js"
export * from "./sql/index.js"
