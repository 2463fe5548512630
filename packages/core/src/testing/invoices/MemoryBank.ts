/**
 * A scripted bank for simulations and tests: it issues invoices, and the test says what the bank
 * reports about them (`report`), or makes it unavailable. It serves no PDF itself: `fetchPdf`
 * answers with the bank's file URL, the redirect form of the port (the sandbox bank of the
 * adapters package renders real PDFs).
 */
import { Context, Effect, Layer } from "effect"
import { BankGateway, type BankGatewayShape, type BankInvoiceRef } from "../../invoices/BankGateway.js"
import { BankUnavailable } from "../../invoices/InvoiceError.js"
import type { InvoiceStatus } from "../../invoices/internal/InvoiceState.js"
import { DAY_MS } from "../../timeUnits.js"
import type { PartnerId } from "../../EntityIds.js"

/** Payment term of the scripted bank's invoices. */
export const MEMORY_BANK_TERM_MS = 5 * DAY_MS
export const MEMORY_BANK_BASE_URL = "https://bank.test"

interface BankSideInvoice {
  readonly partnerId: PartnerId
  readonly invoiceId: string
  readonly bankInvoiceId: string
  readonly amountRub: number
  status: InvoiceStatus
}

export interface MemoryBankShape {
  /** What the bank will report for Frank's invoice `invoiceId` from now on. */
  readonly report: (invoiceId: string, status: InvoiceStatus) => Effect.Effect<void>
  /** While false, every call fails with BankUnavailable. */
  readonly setAvailable: (available: boolean) => Effect.Effect<void>
  /** Invoices issued so far, oldest first. */
  readonly issued: Effect.Effect<
    ReadonlyArray<{
      readonly invoiceId: string
      readonly bankInvoiceId: string
      readonly amountRub: number
      readonly status: InvoiceStatus
    }>
  >
  /** How many status reads the bank answered (a test can see that Frank asked). */
  readonly statusReads: Effect.Effect<number>
}

/** A bank in memory: tests pay or reject the invoices it issued. */
export class MemoryBank extends Context.Tag("@frank/core/testing/MemoryBank")<MemoryBank, MemoryBankShape>() {
  /** Provides BankGateway and its control handle MemoryBank. */
  static readonly layer: Layer.Layer<BankGateway | MemoryBank> = Layer.suspend(() => memoryBankLayer)
}

const memoryBankLayer: Layer.Layer<BankGateway | MemoryBank> = Layer.effectContext(
  Effect.sync(() => {
    const byBankId = new Map<string, BankSideInvoice>()
    const byInvoiceId = new Map<string, BankSideInvoice>()
    let available = true
    let reads = 0

    const guard = <A>(f: () => A): Effect.Effect<A, BankUnavailable> =>
      Effect.suspend(() =>
        available ? Effect.sync(f) : Effect.fail(new BankUnavailable({ message: "scripted bank: unavailable" }))
      )

    const find = (ref: BankInvoiceRef): Effect.Effect<BankSideInvoice, BankUnavailable> =>
      Effect.flatMap(
        guard(() => byBankId.get(ref.bankInvoiceId)),
        (found) =>
          found === undefined || found.partnerId !== ref.partnerId
            ? Effect.fail(new BankUnavailable({ message: `scripted bank: no invoice ${ref.bankInvoiceId}` }))
            : Effect.succeed(found)
      )

    const gateway: BankGatewayShape = {
      createInvoice: (request) =>
        guard(() => {
          const n = byBankId.size + 1
          const bankInvoiceId = `mb_${n}`
          const record: BankSideInvoice = {
            partnerId: request.partnerId,
            invoiceId: request.invoiceId,
            bankInvoiceId,
            amountRub: request.amountRub,
            status: "issued"
          }
          byBankId.set(bankInvoiceId, record)
          byInvoiceId.set(request.invoiceId, record)
          return {
            bankInvoiceId,
            number: String(n),
            status: "issued" as const,
            dueAt: request.issuedAt + MEMORY_BANK_TERM_MS
          }
        }),
      fetchStatus: (ref) =>
        Effect.map(find(ref), (found) => {
          reads++
          return { status: found.status }
        }),
      fetchPdf: (ref) =>
        Effect.map(find(ref), (found) => ({
          _tag: "Redirect" as const,
          url: `${MEMORY_BANK_BASE_URL}/invoices/${found.bankInvoiceId}.pdf`
        })),
      createSbpLink: (ref) =>
        Effect.map(find(ref), (found) => ({
          url: `${MEMORY_BANK_BASE_URL}/sbp/${found.bankInvoiceId}`,
          expiresAt: null
        }))
    }

    const control: MemoryBankShape = {
      report: (invoiceId, status) =>
        Effect.sync(() => {
          const found = byInvoiceId.get(invoiceId)
          if (found === undefined) throw new Error(`scripted bank: no invoice for ${invoiceId}`)
          found.status = status
        }),
      setAvailable: (value) =>
        Effect.sync(() => {
          available = value
        }),
      issued: Effect.sync(() =>
        [...byBankId.values()].map((i) => ({
          invoiceId: i.invoiceId,
          bankInvoiceId: i.bankInvoiceId,
          amountRub: i.amountRub,
          status: i.status
        }))
      ),
      statusReads: Effect.sync(() => reads)
    }
    return Context.make(BankGateway, gateway).pipe(Context.add(MemoryBank, control))
  })
)
