/**
 * The ledger store on plain memory, for simulations and fast tests. One semaphore serializes
 * writes, which is the memory counterpart of the SQL store's account row lock.
 */
import { type AccountTotals, emptyTotals, totalsAreValid } from "../ledger/Account.js"
import type { Hold } from "../ledger/Hold.js"
import type { LedgerEntry } from "../ledger/Entry.js"
import { type EntryFilter, matchesFilter } from "../ledger/EntryFilter.js"
import type { LedgerError } from "../ledger/LedgerError.js"
import { LedgerStore, type LedgerStoreShape, type TransactRequest } from "../ledger/LedgerStore.js"
import type { Decision, Snapshot } from "../ledger/rules.js"
import type { StoreError } from "../StoreError.js"
import { sumUsageByDay } from "../ledger/dailyUsage.js"
import type { Plan } from "../tariff/Plan.js"
import { TariffStore, type TariffStoreShape } from "../tariff/TariffStore.js"
import { Chunk, Context, Effect, Either, Layer, Stream } from "effect"
import type { CreditGrant } from "../ledger/CreditGrant.js"
import { alertStateAt, type BalanceAlert } from "../ledger/BalanceAlert.js"
import { availableMinor } from "../ledger/Account.js"
import type { PartnerId } from "../EntityIds.js"

interface PartnerBook {
  totals: AccountTotals
  plan: Plan
  /** Oldest first; listings reverse it. */
  readonly entries: LedgerEntry[]
  readonly holds: Map<string, Hold>
  readonly byReference: Map<string, LedgerEntry>
  /** By id, in creation order. */
  readonly grants: Map<string, CreditGrant>
  /** By id, in creation order. */
  readonly alerts: Map<string, BalanceAlert>
}

const isDue = (g: CreditGrant, now: number) =>
  g.expiredAt === null && g.expiresAt !== null && g.expiresAt <= now && g.remainingMinor > 0

/** Makes a ledger and tariff store in memory. */
export const makeMemoryLedgerStore = Effect.gen(function* () {
  const books = new Map<string, PartnerBook>()
  const lock = yield* Effect.makeSemaphore(1)
  let seq = 0

  const book = (partnerId: PartnerId): PartnerBook => {
    let b = books.get(partnerId)
    if (b === undefined) {
      b = {
        totals: emptyTotals,
        plan: "base",
        entries: [],
        holds: new Map(),
        byReference: new Map(),
        grants: new Map(),
        alerts: new Map()
      }
      books.set(partnerId, b)
    }
    return b
  }
  const peek = (partnerId: PartnerId): PartnerBook | undefined => books.get(partnerId)

  const newestFirst = (partnerId: PartnerId, filter: EntryFilter): LedgerEntry[] => {
    const entries = peek(partnerId)?.entries ?? []
    const out: LedgerEntry[] = []
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!
      if (matchesFilter(e, filter)) out.push(e)
    }
    return out
  }

  const lowBalanceAt = new Map<string, number>()
  const store: LedgerStoreShape & TariffStoreShape = {
    // No rollback exists here: the follow-up (outbox writes, which cannot fail on memory) runs
    // after the state change while the lock is still held, so it is atomic for every observer.
    transact: <A>(
      request: TransactRequest,
      rule: (snapshot: Snapshot) => Either.Either<Decision<A>, LedgerError>,
      followUp?: (result: A) => Effect.Effect<void, StoreError>
    ) =>
      lock.withPermits(1)(
        Effect.suspend((): Effect.Effect<A, LedgerError | StoreError> => {
          const b = book(request.partnerId)
          const decided = rule({
            partnerId: request.partnerId,
            totals: b.totals,
            hold: request.taskId === undefined ? undefined : b.holds.get(request.taskId),
            referenced: request.reference === undefined ? undefined : b.byReference.get(request.reference),
            grants: [...b.grants.values()].filter((g) => g.remainingMinor > 0),
            lastEntryAt: b.entries.at(-1)?.occurredAt
          })
          if (Either.isLeft(decided)) return Effect.fail(decided.left)
          const d = decided.right
          if (!totalsAreValid(d.totals))
            return Effect.dieMessage(`ledger invariant broken: ${JSON.stringify(d.totals)}`)
          for (const e of d.entries) {
            const stored: LedgerEntry = { ...e, seq: ++seq }
            b.entries.push(stored)
            if (stored.reference !== null) b.byReference.set(stored.reference, stored)
          }
          if (d.hold !== undefined) b.holds.set(d.hold.taskId, d.hold)
          for (const g of d.grants) b.grants.set(g.id, g)
          b.totals = d.totals
          return followUp === undefined ? Effect.succeed(d.result) : Effect.as(followUp(d.result), d.result)
        })
      ),
    totals: (partnerId) => Effect.sync(() => peek(partnerId)?.totals ?? emptyTotals),
    hold: (partnerId, taskId) => Effect.sync(() => peek(partnerId)?.holds.get(taskId)),
    listEntries: (partnerId, filter, offset, limit) =>
      Effect.sync(() => {
        const all = newestFirst(partnerId, filter)
        return { items: all.slice(offset, offset + limit), total: all.length }
      }),
    countEntries: (partnerId, filter) => Effect.sync(() => newestFirst(partnerId, filter).length),
    streamEntries: (partnerId, filter, maxRows) =>
      Stream.suspend(() => Stream.fromChunk(Chunk.unsafeFromArray(newestFirst(partnerId, filter).slice(0, maxRows)))),
    usageByDay: (partnerId, fromMs, untilMs) =>
      Effect.sync(() => sumUsageByDay(peek(partnerId)?.entries ?? [], fromMs, untilMs)),
    // Called inside a movement's `transact`, which holds the lock: one synchronous step is atomic anyway.
    claimLowBalance: (partnerId, now, minIntervalMs) =>
      Effect.sync(() => {
        const last = lowBalanceAt.get(partnerId)
        if (last !== undefined && now - last < minIntervalMs) return false
        lowBalanceAt.set(partnerId, now)
        return true
      }),
    grants: (partnerId, { select, limit }) =>
      Effect.sync(() => {
        const all = [...(peek(partnerId)?.grants.values() ?? [])]
        // Newest first, ties by id descending: the SQL store's order.
        if (select === "all")
          return all.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).slice(0, limit)
        return all
          .filter((g) => g.expiredAt === null && g.expiresAt !== null && g.remainingMinor > 0)
          .sort((a, b) => a.expiresAt! - b.expiresAt! || (a.id < b.id ? -1 : 1))
          .slice(0, limit)
      }),
    dueGrants: (now, limit) =>
      Effect.sync(() =>
        [...books.entries()]
          .flatMap(([partnerId, b]) =>
            [...b.grants.values()].filter((g) => isDue(g, now)).map((g) => ({ partnerId, g }))
          )
          .sort((x, y) => x.g.expiresAt! - y.g.expiresAt! || (x.g.id < y.g.id ? -1 : 1))
          .slice(0, limit)
          .map(({ g }) => ({ partnerId: g.partnerId, grantId: g.id }))
      ),
    nextGrantExpiry: Effect.sync(() => {
      let next: number | undefined
      for (const b of books.values())
        for (const g of b.grants.values())
          if (
            g.expiredAt === null &&
            g.expiresAt !== null &&
            g.remainingMinor > 0 &&
            (next === undefined || g.expiresAt < next)
          )
            next = g.expiresAt
      return next
    }),
    createAlert: (alert, maxAlerts) =>
      lock.withPermits(1)(
        Effect.suspend(() => {
          const b = book(alert.partnerId)
          if (b.alerts.size >= maxAlerts) return Effect.succeed(undefined)
          const stored: BalanceAlert = {
            ...alert,
            state: alertStateAt(alert.thresholdMinor, availableMinor(b.totals)),
            crossings: 0
          }
          b.alerts.set(stored.id, stored)
          return Effect.succeed(stored)
        })
      ),
    alerts: (partnerId) =>
      Effect.sync(() =>
        [...(peek(partnerId)?.alerts.values() ?? [])].sort(
          (a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)
        )
      ),
    deleteAlert: (partnerId, alertId) => Effect.sync(() => peek(partnerId)?.alerts.delete(alertId) ?? false),
    // Inside a movement's `transact`, under the lock.
    settleAlerts: (partnerId, available) =>
      Effect.sync(() => {
        const b = peek(partnerId)
        if (b === undefined) return []
        const changed: BalanceAlert[] = []
        for (const a of b.alerts.values()) {
          const state = alertStateAt(a.thresholdMinor, available)
          if (state === a.state) continue
          const next = { ...a, state, crossings: a.crossings + 1 }
          b.alerts.set(a.id, next)
          changed.push(next)
        }
        return changed
      }),
    assignedPlan: (partnerId) => Effect.sync(() => peek(partnerId)?.plan ?? "base"),
    setAssignedPlan: (partnerId, plan) =>
      lock.withPermits(1)(
        Effect.sync(() => {
          book(partnerId).plan = plan
        })
      )
  }
  return store
})

/** Provides the ledger store and the tariff plan store, which it implements too. */
export const MemoryLedgerStore = Layer.effectContext(
  Effect.map(makeMemoryLedgerStore, (store) => Context.make(LedgerStore, store).pipe(Context.add(TariffStore, store)))
)
