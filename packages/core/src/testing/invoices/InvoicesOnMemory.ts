/**
 * The legal-invoice service on memory stores with the scripted bank, for embedders' tests and
 * simulations. Needs Ledger, Outbox and Ids; exposes MemoryBank to script the bank's answers.
 */
import { Layer } from "effect"
import { Invoices } from "../../invoices/Invoices.js"
import { MemoryBank } from "./MemoryBank.js"
import { MemoryInvoiceStores } from "./MemoryInvoiceStores.js"

/** The invoices service on memory stores and a memory bank, for tests. */
export const InvoicesOnMemory = Invoices.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(MemoryInvoiceStores, MemoryBank.layer))
)
