/**
 * The prepaid ledger through Promises: credits, holds for tasks (reserve, confirm, refund) and
 * what an account holds. Amounts are integer minor units (1 ₣ = 100).
 */
import { Ledger } from "@frank/core"
import { type Context, Effect } from "effect"
import { ids, type Loose } from "./ids.js"
import { withPartner } from "./partner.js"
import type { Run } from "./run.js"

type Service = Context.Tag.Service<typeof Ledger.Ledger>
/** A credit: a top-up, a bonus or an adjustment, idempotent by `reference`. */
export type CreditCommand = Parameters<Service["credit"]>[1]
/** A debit or refund of spend: an amount leaving the account outside a task. */
export type OutflowCommand = Parameters<Service["debit"]>[1]
/** A hold for a task: the amount put aside before the task runs. */
export type ReserveCommand = Loose<Parameters<Service["reserve"]>[1]>
/** The task's actual cost, at most its hold; the rest goes back. */
export type ConfirmCommand = Loose<Parameters<Service["confirm"]>[1]>
/** Releases a task's whole hold. */
export type RefundCommand = Loose<Parameters<Service["refund"]>[1]>
/** A movement's outcome: the entry written (or the first one, for a repeated reference) and the balance. */
export type MovementResult = Effect.Effect.Success<ReturnType<Service["credit"]>>
/** A hold's outcome after reserve, confirm or refund. */
export type HoldResult = Effect.Effect.Success<ReturnType<Service["reserve"]>>
/** The balance as the partner API shows it, in ₣: total, used, reserved, available, isLow. */
export type Balance = Effect.Effect.Success<ReturnType<Service["balance"]>>
/** Which entries `listEntries` answers. */
export type EntryFilter = Ledger.EntryFilter

/** The ledger's Promise API. */
export interface FrankLedger {
  /** Credits the account; fails with AMOUNT_INVALID or LEDGER_REFERENCE_CONFLICT. */
  credit(partnerId: string, cmd: CreditCommand): Promise<MovementResult>
  /** Takes an amount out of the account outside a task; INSUFFICIENT_FUNDS when it is not there. */
  debit(partnerId: string, cmd: OutflowCommand): Promise<MovementResult>
  /** Puts aside `amountMinor` for a task; INSUFFICIENT_FUNDS (402) when the available balance is short. */
  reserve(partnerId: string, cmd: ReserveCommand): Promise<HoldResult>
  /** Charges a task's actual cost from its hold and releases the rest; HOLD_NOT_FOUND, HOLD_ALREADY_SETTLED. */
  confirm(partnerId: string, cmd: ConfirmCommand): Promise<HoldResult>
  /** Releases a task's hold entirely (the task failed); HOLD_NOT_FOUND, HOLD_ALREADY_SETTLED. */
  refund(partnerId: string, cmd: RefundCommand): Promise<HoldResult>
  /** The account's balance in ₣ (total, used, reserved, available), as the partner API shows it. */
  balance(partnerId: string): Promise<Balance>
  /** The account's lifetime totals (credited, spent, refunded). */
  totals(partnerId: string): Promise<Ledger.AccountTotals>
  /** A task's hold, or undefined when there is none. */
  hold(partnerId: string, taskId: string): Promise<Ledger.Hold | undefined>
  /** A page of ledger entries, newest first, with the filter's total count. */
  listEntries(
    partnerId: string,
    options?: { readonly filter?: EntryFilter; readonly offset?: number; readonly limit?: number }
  ): Promise<Ledger.EntryPage>
}

/** The ledger API over `run`. */
export const makeLedgerApi = (run: Run): FrankLedger => {
  const use = withPartner(run, Ledger.Ledger)
  return {
    credit: (partnerId, cmd) => use(partnerId, (l, id) => l.credit(id, cmd)),
    debit: (partnerId, cmd) => use(partnerId, (l, id) => l.debit(id, cmd)),
    reserve: (partnerId, cmd) =>
      use(partnerId, (l, id) => Effect.flatMap(ids.task(cmd.taskId), (taskId) => l.reserve(id, { ...cmd, taskId }))),
    confirm: (partnerId, cmd) =>
      use(partnerId, (l, id) => Effect.flatMap(ids.task(cmd.taskId), (taskId) => l.confirm(id, { ...cmd, taskId }))),
    refund: (partnerId, cmd) =>
      use(partnerId, (l, id) => Effect.flatMap(ids.task(cmd.taskId), (taskId) => l.refund(id, { ...cmd, taskId }))),
    balance: (partnerId) => use(partnerId, (l, id) => l.balance(id)),
    totals: (partnerId) => use(partnerId, (l, id) => l.totals(id)),
    hold: (partnerId, taskId) => use(partnerId, (l, id) => Effect.flatMap(ids.task(taskId), (t) => l.hold(id, t))),
    listEntries: (partnerId, options = {}) =>
      use(partnerId, (l, id) => l.listEntries(id, options.filter ?? {}, options.offset ?? 0, options.limit ?? 50))
  }
}
