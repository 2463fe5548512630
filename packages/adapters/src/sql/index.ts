export * from "./Database.js"
export { migrationCount, migrationLoader, MigrationsLayer, runMigrations } from "./migrations/index.js"
export * from "./SqlLedgerStore.js"
export * from "./testDatabase.js"
