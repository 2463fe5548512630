/**
 * The ledger service: the engine's entry point for money. It draws time and ids from the outside
 * world, then hands a pure rule to the store, which applies it atomically together with the
 * webhook events the movement causes (transactional outbox), and wakes the delivery worker after
 * the commit.
 */
import { Clock, Context, Effect, type Either, Layer, type Stream } from "effect"
import { Ids } from "../Ids.js"
import type { EventDraft } from "../events/Event.js"
import { confirmEvents, creditEvents, refundEvents } from "./ledgerEvents.js"
import { checkLowBalance } from "./lowBalance.js"
import { Outbox } from "../events/Outbox.js"
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
import type { PartnerId } from "../EntityIds.js"

export interface LedgerShape {
  readonly credit: (
    partnerId: PartnerId,
    cmd: rules.CreditCommand
  ) => Effect.Effect<rules.MovementResult, LedgerError | StoreError>
  readonly reverseBonus: (
    partnerId: PartnerId,
    cmd: rules.OutflowCommand
  ) => Effect.Effect<rules.MovementResult, LedgerError | StoreError>
  readonly debit: (
    partnerId: PartnerId,
    cmd: rules.OutflowCommand
  ) => Effect.Effect<rules.MovementResult, LedgerError | StoreError>
  readonly refundSpend: (
    partnerId: PartnerId,
    cmd: rules.OutflowCommand
  ) => Effect.Effect<rules.MovementResult, LedgerError | StoreError>
  readonly reserve: (
    partnerId: PartnerId,
    cmd: rules.ReserveCommand
  ) => Effect.Effect<rules.HoldResult, LedgerError | StoreError>
  readonly confirm: (
    partnerId: PartnerId,
    cmd: rules.ConfirmCommand
  ) => Effect.Effect<rules.HoldResult, LedgerError | StoreError>
  readonly refund: (
    partnerId: PartnerId,
    cmd: rules.RefundCommand
  ) => Effect.Effect<rules.HoldResult, LedgerError | StoreError>
  readonly totals: (partnerId: PartnerId) => Effect.Effect<AccountTotals, StoreError>
  readonly balance: (partnerId: PartnerId) => Effect.Effect<Balance, StoreError>
  readonly hold: (partnerId: PartnerId, taskId: string) => Effect.Effect<Hold | undefined, StoreError>
  readonly listEntries: (
    partnerId: PartnerId,
    filter: EntryFilter,
    offset: number,
    limit: number
  ) => Effect.Effect<EntryPage, StoreError>
  readonly countEntries: (partnerId: PartnerId, filter: EntryFilter) => Effect.Effect<number, StoreError>
  readonly streamEntries: (
    partnerId: PartnerId,
    filter: EntryFilter,
    maxRows: number
  ) => Stream.Stream<LedgerEntry, StoreError>
  readonly usageByDay: (
    partnerId: PartnerId,
    fromMs: number,
    untilMs: number
  ) => Effect.Effect<ReadonlyArray<UsageDay>, StoreError>
}

export class Ledger extends Context.Tag("@frank/core/Ledger")<Ledger, LedgerShape>() {
  static readonly layer = Layer.effect(
    Ledger,
    Effect.gen(function* () {
      const store = yield* LedgerStore
      const ids = yield* Ids

      const outbox = yield* Outbox
      const lowBalance = checkLowBalance(store, outbox)

      /** What a movement emits: its events, and whether it lowered available (low-balance check). */
      interface Effects<A> {
        readonly events: (result: A) => ReadonlyArray<EventDraft>
        readonly lowersAvailable: (result: A) => boolean
      }
      const none: Effects<unknown> = { events: () => [], lowersAvailable: () => false }
      const lowering: Effects<{ readonly replayed: boolean }> = {
        events: () => [],
        lowersAvailable: (r) => !r.replayed
      }

      const run =
        <C, A extends { readonly replayed: boolean; readonly totals: AccountTotals }>(
          request: (partnerId: PartnerId, cmd: C) => TransactRequest,
          rule: (snap: rules.Snapshot, cmd: C, ctx: rules.RuleContext) => Either.Either<rules.Decision<A>, LedgerError>,
          effects: (cmd: C) => Effects<A>
        ) =>
        (partnerId: PartnerId, cmd: C) =>
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const entryIds: readonly [string, string] = [yield* ids.next, yield* ids.next]
            const fx = effects(cmd)
            let emitted = 0
            const result = yield* store.transact(
              request(partnerId, cmd),
              (snap) => rule(snap, cmd, { now, entryIds }),
              (r) =>
                Effect.gen(function* () {
                  for (const draft of fx.events(r)) emitted += (yield* outbox.emit(partnerId, draft)).deliveries
                  if (fx.lowersAvailable(r)) emitted += yield* lowBalance(partnerId, r.totals)
                })
            )
            if (emitted > 0) yield* outbox.wake
            return result
          })

      const byReference = (partnerId: PartnerId, cmd: { reference?: string | undefined }): TransactRequest => ({
        partnerId,
        reference: cmd.reference
      })
      const byTask = (partnerId: PartnerId, cmd: { taskId: string }): TransactRequest => ({
        partnerId,
        taskId: cmd.taskId
      })

      return {
        credit: run(byReference, rules.credit, (cmd) => ({
          events: (r) => creditEvents(cmd.kind, r),
          // A negative adjustment takes money away.
          lowersAvailable: (r) => cmd.amountMinor < 0 && !r.replayed
        })),
        reverseBonus: run(byReference, rules.reverseBonus, () => lowering),
        debit: run(byReference, rules.debit, () => lowering),
        refundSpend: run(byReference, rules.refundSpend, () => none),
        reserve: run(byTask, rules.reserve, () => lowering),
        confirm: run(byTask, rules.confirm, () => ({ events: confirmEvents, lowersAvailable: () => false })),
        refund: run(byTask, rules.refund, () => ({ events: refundEvents, lowersAvailable: () => false })),
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
