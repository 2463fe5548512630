/**
 * What happens when someone pays or cancels at the sandbox bank (the operator's admin controls,
 * the payer on the SBP page): the bank changes its own book, then sends Frank a notice, as a real
 * bank's notification would. Frank treats the notice as a prompt only and asks the bank for the
 * status (Invoices.bankNotice → fetchStatus → the state machine), so this path is the one a real
 * bank integration takes; a partner's refresh reaches the same result without the notice.
 */
import { SandboxBank } from "@frank/adapters"
import { Invoices } from "@frank/core"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names StoreError in this module's inferred types through it
import type { Errors } from "@frank/core"
import { Clock, Effect } from "effect"

export interface BankSettlement {
  readonly bank: SandboxBank.SandboxBankInvoice
  readonly bankStatus: ReturnType<typeof SandboxBank.reportedStatus>
  readonly changed: boolean
  /** Frank's invoice after the notice; undefined when Frank has no record of it. */
  readonly invoice: Invoices.Invoice | undefined
}

export const settleAndNotify = (id: string, action: SandboxBank.SettleAction) =>
  Effect.gen(function* () {
    const bank = yield* SandboxBank.SandboxBank
    const invoices = yield* Invoices.Invoices
    const settled = yield* bank.settle(id, action)
    const invoice = yield* invoices
      .bankNotice(settled.invoice.partnerId, settled.invoice.invoiceId)
      .pipe(Effect.catchTag("InvoiceNotFound", () => Effect.succeed(undefined)))
    const settlement: BankSettlement = {
      bank: settled.invoice,
      bankStatus: SandboxBank.reportedStatus(settled.invoice, yield* Clock.currentTimeMillis),
      changed: settled.changed,
      invoice
    }
    return settlement
  })
