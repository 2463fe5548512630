/**
 * Storage port of legal invoices. Adapters implement it on memory and SQL; one contract suite
 * (test/contract/invoicesContract.ts) holds both to the same behaviour.
 */
import { Context, type Effect } from "effect"
import type { InvoiceId, PartnerId } from "../EntityIds.js"
import type { StoreError } from "../StoreError.js"
import type { Invoice } from "./Invoice.js"

export interface InvoicePage {
  /** Newest first. */
  readonly items: ReadonlyArray<Invoice>
  /** Invoices of the partner in all pages. */
  readonly total: number
}

/** What a step inside `modify` decided: the record to write (none: unchanged) and its answer. */
export interface InvoiceStep<A> {
  readonly write: Invoice | undefined
  readonly result: A
}

/** The operations of the invoice store port. */
export interface InvoiceStoreShape {
  /** Records a new invoice. */
  readonly insert: (invoice: Invoice) => Effect.Effect<void, StoreError>
  /** A foreign or malformed id is simply not found. */
  readonly get: (partnerId: PartnerId, id: InvoiceId) => Effect.Effect<Invoice | undefined, StoreError>
  /** The partner's invoices, newest first, one page with the total. */
  readonly list: (partnerId: PartnerId, offset: number, limit: number) => Effect.Effect<InvoicePage, StoreError>
  /**
   * Runs `step` on the invoice under an exclusive lock and writes what it decides, in ONE
   * transaction with everything the step itself writes (a ledger credit, outbox events — on SQL
   * those stores join the transaction). A failing step writes nothing. Concurrent calls for one
   * invoice serialize, so the second sees the first's result. Undefined when there is no such
   * invoice.
   */
  readonly modify: <A, E, R>(
    partnerId: PartnerId,
    id: InvoiceId,
    step: (current: Invoice) => Effect.Effect<InvoiceStep<A>, E, R>
  ) => Effect.Effect<A | undefined, E | StoreError, R>
}

/** Port: where invoices are kept. */
export class InvoiceStore extends Context.Tag("@frank/core/InvoiceStore")<InvoiceStore, InvoiceStoreShape>() {}
