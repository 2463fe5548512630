export * from "./memory/MemoryLedgerStore.js"
