/**
 * `@frank/core/testing`: the simulation kit. Memory stores, a scripted webhook receiver and a
 * TestClock driver, so integrators can assert attempt times and final states of their flows.
 */
export * from "./MemoryLedgerStore.js"
export * from "./MemoryWebhookStore.js"
export * from "./ScriptedReceiver.js"
export * from "./Simulation.js"
export * from "./MemoryPaymentStore.js"
export * from "./MemoryStoredFileStore.js"
export * from "./MemoryBlobStore.js"
export * from "./ScriptedMedia.js"
export * from "./FilesOnMemory.js"
export * from "./MemoryStoredFileLookup.js"
export * from "./MemoryTaskStore.js"
export * from "./ManualGenerationProvider.js"
export * from "./TasksOnMemory.js"
export * from "./MemoryInvoiceStores.js"
export * from "./MemoryBank.js"
export * from "./InvoicesOnMemory.js"
export * from "./testPartner.js"
export * from "./verifyReceived.js"
