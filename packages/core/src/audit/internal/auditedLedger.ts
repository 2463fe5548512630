/**
 * The ledger with the partner-visible changes that are not money movements of a task recorded:
 * credits (an operator's bonus grant with its expiry and priority, an adjustment, a top-up
 * credited) and balance alerts (created, deleted). Each record commits in the change's own
 * transaction. A credit answered again for a repeated reference changed nothing: no record.
 */
import { Effect } from "effect"
import { alongsideMovement } from "../../ledger/internal/alongsideMovement.js"
import type { LedgerShape } from "../../ledger/Ledger.js"
import type { AuditLogShape } from "../AuditLog.js"
import { fieldsOf } from "./fieldsOf.js"

/** The command's names as the admin API and the audit log show them. */
const creditFields = { amountMinor: "amount", note: "description" }

type CreditResult = Effect.Effect.Success<ReturnType<LedgerShape["credit"]>>

/** `ledger` whose credits and alert changes `log` records. */
export const auditedLedger = (ledger: LedgerShape, log: AuditLogShape): LedgerShape => ({
  ...ledger,
  // In the credit's own transaction (no enclosing one: that would make it a savepoint).
  credit: (partnerId, cmd) =>
    alongsideMovement((r: CreditResult) =>
      r.replayed
        ? Effect.void
        : log.record(partnerId, {
            action: "credit.added",
            target: { type: "ledger_entry", id: r.entry.id },
            changes: [
              ...fieldsOf({ amountMinor: cmd.amountMinor, kind: cmd.kind, note: cmd.note }, creditFields),
              ...fieldsOf({ reference: cmd.reference, ...cmd.grant })
            ]
          })
    )(ledger.credit(partnerId, cmd)),
  createAlert: (partnerId, thresholdMinor) =>
    log.recorded(
      partnerId,
      (a) => ({ action: "balance_alert.created", target: { type: "balance_alert", id: a.id }, changes: ["threshold"] }),
      ledger.createAlert(partnerId, thresholdMinor)
    ),
  deleteAlert: (partnerId, alertId) =>
    log.recorded(
      partnerId,
      { action: "balance_alert.deleted", target: { type: "balance_alert", id: alertId }, changes: ["deletedAt"] },
      ledger.deleteAlert(partnerId, alertId)
    )
})
