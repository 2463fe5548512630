/**
 * The ledger service: the engine's entry point for money. It draws time and ids from the outside
 * world, then hands a pure rule to the store, which applies it atomically.
 */
import { Clock, Context, Effect, type Either, Layer, type Stream } from "effect"
import { Ids } from "../Ids.js"
import type { StoreError } from "../StoreError.js"
import type { AccountTotals } from "./Account.js"
import { type Balance, balanceView } from "./Balance.js"
import type { LedgerEntry } from "./Entry.js"
import type { EntryFilter } from "./EntryFilter.js"
import type { Hold } from "./Hold.js"
import type { LedgerError } from "./LedgerError.js"
import { LedgerStore, type EntryPage, type TransactRequest } from "./LedgerStore.js"
import * as rules from "./rules.js"
import type { UsageDay } from "./dailyUsage.js"

export interface LedgerShape {
  readonly credit: (partnerId: string, cmd: rules.CreditCommand) => Effect.Effect<rules.MovementResult, LedgerError | StoreError>
  readonly reverseBonus: (partnerId: string, cmd: rules.OutflowCommand) => Effect.Effect<rules.MovementResult, LedgerError | StoreError>
  readonly debit: (partnerId: string, cmd: rules.OutflowCommand) => Effect.Effect<rules.MovementResult, LedgerError | StoreError>
  readonly refundSpend: (partnerId: string, cmd: rules.OutflowCommand) => Effect.Effect<rules.MovementResult, LedgerError | StoreError>
  readonly reserve: (partnerId: string, cmd: rules.ReserveCommand) => Effect.Effect<rules.HoldResult, LedgerError | StoreError>
  readonly confirm: (partnerId: string, cmd: rules.ConfirmCommand) => Effect.Effect<rules.HoldResult, LedgerError | StoreError>
  readonly refund: (partnerId: string, cmd: rules.RefundCommand) => Effect.Effect<rules.HoldResult, LedgerError | StoreError>
  readonly totals: (partnerId: string) => Effect.Effect<AccountTotals, StoreError>
  readonly balance: (partnerId: string) => Effect.Effect<Balance, StoreError>
  readonly hold: (partnerId: string, taskId: string) => Effect.Effect<Hold | undefined, StoreError>
  readonly listEntries: (partnerId: string, filter: EntryFilter, offset: number, limit: number) => Effect.Effect<EntryPage, StoreError>
  readonly countEntries: (partnerId: string, filter: EntryFilter) => Effect.Effect<number, StoreError>
  readonly streamEntries: (partnerId: string, filter: EntryFilter, maxRows: number) => Stream.Stream<LedgerEntry, StoreError>
  readonly usageByDay: (partnerId: string, fromMs: number, untilMs: number) => Effect.Effect<ReadonlyArray<UsageDay>, StoreError>
}

export class Ledger extends Context.Tag("@frank/core/Ledger")<Ledger, LedgerShape>() {
  static readonly layer = Layer.effect(
    Ledger,
    Effect.gen(function* () {
      const store = yield* LedgerStore
      const ids = yield* Ids

      const run =
        <C, A>(
          request: (partnerId: string, cmd: C) => TransactRequest,
          rule: (snap: rules.Snapshot, cmd: C, ctx: rules.RuleContext) => Either.Either<rules.Decision<A>, LedgerError>
        ) =>
        (partnerId: string, cmd: C) =>
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const entryIds: readonly [string, string] = [yield* ids.next, yield* ids.next]
            return yield* store.transact(request(partnerId, cmd), (snap) => rule(snap, cmd, { now, entryIds }))
          })

      const byReference = (partnerId: string, cmd: { reference?: string | undefined }): TransactRequest => ({ partnerId, reference: cmd.reference })
      const byTask = (partnerId: string, cmd: { taskId: string }): TransactRequest => ({ partnerId, taskId: cmd.taskId })

      return {
        credit: run(byReference, rules.credit),
        reverseBonus: run(byReference, rules.reverseBonus),
        debit: run(byReference, rules.debit),
        refundSpend: run(byReference, rules.refundSpend),
        reserve: run(byTask, rules.reserve),
        confirm: run(byTask, rules.confirm),
        refund: run(byTask, rules.refund),
        totals: store.totals,
        balance: (partnerId) => Effect.map(store.totals(partnerId), balanceView),
        hold: store.hold,
        listEntries: store.listEntries,
        countEntries: store.countEntries,
        streamEntries: store.streamEntries,
        usageByDay: store.usageByDay
      }
    })
  )
}
