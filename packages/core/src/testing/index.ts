/**
 * `@frank/core/testing`: the simulation kit. Memory stores, a scripted webhook receiver and a
 * TestClock driver, so integrators can assert attempt times and final states of their flows.
 */
export { FilesOnMemory } from "./files/FilesOnMemory.js"
export { InvoicesOnMemory } from "./invoices/InvoicesOnMemory.js"
export { ManualGeneration, ManualGenerationProvider } from "./tasks/ManualGenerationProvider.js"
export { makeMemoryAuditStore, MemoryAuditStore } from "./MemoryAuditStore.js"
export { MemoryBank } from "./invoices/MemoryBank.js"
export { makeMemoryBlobStore } from "./files/MemoryBlobStore.js"
export { MemoryInvoiceStores } from "./invoices/MemoryInvoiceStores.js"
export { makeMemoryLedgerStore, MemoryLedgerStore } from "./MemoryLedgerStore.js"
export { MemoryPaymentStore } from "./MemoryPaymentStore.js"
export { MemoryStoredFileLookup, OwnedFiles } from "./files/MemoryStoredFileLookup.js"
export { MemoryStoredFileStore } from "./files/MemoryStoredFileStore.js"
export { MemoryTaskStore } from "./tasks/MemoryTaskStore.js"
/** The four webhook store ports and the event store on memory: `MemoryWebhookStore.layer`. */
export * as MemoryWebhookStore from "./webhooks/MemoryWebhookStore.js"
export { OutboxOnMemory } from "./webhooks/OutboxOnMemory.js"
export { type ScriptedFile, ScriptedMedia, type ScriptedMediaShape } from "./files/ScriptedMedia.js"
export { type ReceivedRequest, type ScriptedAnswer, ScriptedReceiver } from "./ScriptedReceiver.js"
export { type EngineStores, Simulation, SimulationEngine } from "./Simulation.js"
export { TasksOnMemory } from "./tasks/TasksOnMemory.js"
export { testPartner } from "./testPartner.js"
export { testTask } from "./tasks/testTask.js"
export { verifyReceived } from "./verifyReceived.js"
