/**
 * The ledger service: the engine's entry point for money. It draws time and ids from the outside
 * world, then hands a pure rule to the store, which applies it atomically together with the
 * webhook events the movement causes (transactional outbox), and wakes the delivery worker after
 * the commit.
 */
import { Clock, Context, Effect, type Either, FiberRef, Layer, type Stream } from "effect"
import { Ids } from "../internal/ids.js"
import { annotateSpan } from "../internal/spans.js"
import type { EventDraft } from "../events/Event.js"
import {
  balanceAlertEvent,
  bonusExpiredEvents,
  confirmEvents,
  creditEvents,
  refundEvents
} from "./internal/ledgerEvents.js"
import { checkLowBalance } from "./internal/lowBalance.js"
import { currentAlongside } from "./internal/alongsideMovement.js"
import { Outbox } from "../events/Outbox.js"
import type { StoreError } from "../StoreError.js"
import { type AccountTotals, availableMinor } from "./Account.js"
import { type Balance, balanceView } from "./internal/Balance.js"
import type { LedgerEntry } from "./Entry.js"
import type { EntryFilter } from "./EntryFilter.js"
import type { Hold } from "./Hold.js"
import type { LedgerError } from "./LedgerError.js"
import { LedgerStore, type EntryPage, type TransactRequest } from "./LedgerStore.js"
import * as rules from "./rules.js"
import type { UsageDay } from "./dailyUsage.js"
import type { PartnerId, TaskId } from "../EntityIds.js"
import type { CreditGrant } from "./CreditGrant.js"
import {
  AlertLimitReached,
  AlertNotFound,
  type BalanceAlert,
  InvalidAlertThreshold,
  MAX_ALERT_THRESHOLD_MINOR,
  MAX_ALERTS_PER_PARTNER,
  MIN_ALERT_THRESHOLD_MINOR
} from "./BalanceAlert.js"

/** How many of the next expiries the balance shows. */
export const BALANCE_EXPIRING_MAX = 5
/** How many grants a listing shows at most, newest first. */
export const GRANT_LIST_MAX = 100

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
  /** Expires a due grant (the expiry sweep calls it); a grant not due or already expired is left alone. */
  readonly expireGrant: (
    partnerId: PartnerId,
    grantId: string
  ) => Effect.Effect<rules.ExpireResult, LedgerError | StoreError>
  /** The partner's grants, newest first, at most GRANT_LIST_MAX. */
  readonly grants: (partnerId: PartnerId) => Effect.Effect<ReadonlyArray<CreditGrant>, StoreError>
  readonly createAlert: (
    partnerId: PartnerId,
    thresholdMinor: number
  ) => Effect.Effect<BalanceAlert, AlertLimitReached | InvalidAlertThreshold | StoreError>
  readonly alerts: (partnerId: PartnerId) => Effect.Effect<ReadonlyArray<BalanceAlert>, StoreError>
  readonly deleteAlert: (partnerId: PartnerId, alertId: string) => Effect.Effect<void, AlertNotFound | StoreError>
  readonly totals: (partnerId: PartnerId) => Effect.Effect<AccountTotals, StoreError>
  readonly balance: (partnerId: PartnerId) => Effect.Effect<Balance, StoreError>
  readonly hold: (partnerId: PartnerId, taskId: TaskId) => Effect.Effect<Hold | undefined, StoreError>
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

/** The ledger service: credits, reserves, confirms and refunds money and reads balances and entries. */
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

      /** Every movement that changed money moves the partner's alerts, in its own transaction. */
      const settleAlerts = (partnerId: PartnerId, totals: AccountTotals) =>
        Effect.gen(function* () {
          const available = availableMinor(totals)
          let deliveries = 0
          for (const alert of yield* store.settleAlerts(partnerId, available))
            deliveries += (yield* outbox.emit(partnerId, balanceAlertEvent(alert, available))).deliveries
          return deliveries
        })

      // Each command is a span (`frank.ledger.credit`, …): the transaction, its events' outbox
      // writes and the wake-up below it in a trace.
      const run =
        <C, A extends { readonly replayed: boolean; readonly totals: AccountTotals }>(
          command: string,
          request: (partnerId: PartnerId, cmd: C) => TransactRequest,
          rule: (snap: rules.Snapshot, cmd: C, ctx: rules.RuleContext) => Either.Either<rules.Decision<A>, LedgerError>,
          effects: (cmd: C) => Effects<A>
        ) =>
        (partnerId: PartnerId, cmd: C) =>
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const entryIds: readonly [string, string, string] = [yield* ids.next, yield* ids.next, yield* ids.next]
            const fx = effects(cmd)
            const alongside = yield* FiberRef.get(currentAlongside)
            let emitted = 0
            const result = yield* store
              .transact(
                request(partnerId, cmd),
                // The clock is read before the lock: a movement that waited behind a later one
                // takes that one's time, so stores can find a date range by write order.
                (snap) => rule(snap, cmd, { now: Math.max(now, snap.lastEntryAt ?? now), entryIds }),
                (r) =>
                  Effect.gen(function* () {
                    for (const draft of fx.events(r)) emitted += (yield* outbox.emit(partnerId, draft)).deliveries
                    if (fx.lowersAvailable(r)) emitted += yield* lowBalance(partnerId, r.totals)
                    if (!r.replayed) emitted += yield* settleAlerts(partnerId, r.totals)
                    if (alongside !== undefined) yield* alongside(r)
                  })
              )
              .pipe(Effect.locally(currentAlongside, undefined))
            if (emitted > 0) yield* outbox.wake
            yield* annotateSpan({ "frank.ledger.replayed": result.replayed })
            return result
          }).pipe(Effect.withSpan(`frank.ledger.${command}`, { attributes: { "frank.partner_id": partnerId } }))

      const byReference = (partnerId: PartnerId, cmd: { reference?: string | undefined }): TransactRequest => ({
        partnerId,
        reference: cmd.reference
      })
      const byPartner = (partnerId: PartnerId): TransactRequest => ({ partnerId })
      const byTask = (partnerId: PartnerId, cmd: { taskId: TaskId }): TransactRequest => ({
        partnerId,
        taskId: cmd.taskId
      })

      return {
        credit: run("credit", byReference, rules.credit, (cmd) => ({
          events: (r) => creditEvents(cmd.kind, r),
          // A negative adjustment takes money away.
          lowersAvailable: (r) => cmd.amountMinor < 0 && !r.replayed
        })),
        reverseBonus: run("reverseBonus", byReference, rules.reverseBonus, () => lowering),
        debit: run("debit", byReference, rules.debit, () => lowering),
        refundSpend: run("refundSpend", byReference, rules.refundSpend, () => none),
        reserve: run("reserve", byTask, rules.reserve, () => lowering),
        confirm: run("confirm", byTask, rules.confirm, () => ({
          events: (r) => [...confirmEvents(r), ...bonusExpiredEvents(r.expired)],
          lowersAvailable: () => false
        })),
        refund: run("refund", byTask, rules.refund, () => ({
          events: (r) => [...refundEvents(r), ...bonusExpiredEvents(r.expired)],
          lowersAvailable: () => false
        })),
        expireGrant: (partnerId, grantId) =>
          run("expireGrant", byPartner, rules.expireGrant, () => ({
            events: (r) => bonusExpiredEvents(r.expired),
            lowersAvailable: (r) => r.expired.length > 0
          }))(partnerId, { grantId }),
        grants: (partnerId) => store.grants(partnerId, { select: "all", limit: GRANT_LIST_MAX }),
        createAlert: (partnerId, thresholdMinor) =>
          Effect.gen(function* () {
            if (
              !Number.isSafeInteger(thresholdMinor) ||
              thresholdMinor < MIN_ALERT_THRESHOLD_MINOR ||
              thresholdMinor > MAX_ALERT_THRESHOLD_MINOR
            )
              return yield* new InvalidAlertThreshold({ message: "thresholdFranks must be in 1..10,000,000" })
            const id = yield* ids.next
            const createdAt = yield* Clock.currentTimeMillis
            const made = yield* store.createAlert({ id, partnerId, thresholdMinor, createdAt }, MAX_ALERTS_PER_PARTNER)
            if (made === undefined)
              return yield* new AlertLimitReached({
                message: `at most ${MAX_ALERTS_PER_PARTNER} balance alerts per partner`
              })
            return made
          }),
        alerts: store.alerts,
        deleteAlert: (partnerId, alertId) =>
          Effect.flatMap(store.deleteAlert(partnerId, alertId), (found) =>
            found ? Effect.void : Effect.fail(new AlertNotFound({ message: `no balance alert ${alertId}` }))
          ),
        totals: store.totals,
        balance: (partnerId) =>
          store.totalsWithExpiring === undefined
            ? Effect.zipWith(
                store.totals(partnerId),
                store.grants(partnerId, { select: "expiring", limit: BALANCE_EXPIRING_MAX }),
                balanceView
              )
            : Effect.map(store.totalsWithExpiring(partnerId, BALANCE_EXPIRING_MAX), (r) =>
                balanceView(r.totals, r.expiring)
              ),
        hold: store.hold,
        listEntries: store.listEntries,
        countEntries: store.countEntries,
        streamEntries: store.streamEntries,
        usageByDay: store.usageByDay
      }
    })
  )
}
