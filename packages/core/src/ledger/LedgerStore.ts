/**
 * The ledger's storage port. Adapters implement it on memory (simulations) and SQL (Postgres and
 * embedded PGlite); one contract suite holds every implementation to the same behaviour.
 */
import { Context, type Effect, type Either, type Stream } from "effect"
import type { StoreError } from "../StoreError.js"
import type { AccountTotals } from "./Account.js"
import type { LedgerEntry } from "./Entry.js"
import type { EntryFilter } from "./EntryFilter.js"
import type { Hold } from "./Hold.js"
import type { LedgerError } from "./LedgerError.js"
import type { Decision, Snapshot } from "./rules.js"
import type { UsageDay } from "./dailyUsage.js"
import type { CreditGrant } from "./CreditGrant.js"
import type { BalanceAlert } from "./BalanceAlert.js"
import type { PartnerId, TaskId } from "../EntityIds.js"

/** What a ledger movement asks of the store: the partner, task and reference it concerns. */
export interface TransactRequest {
  readonly partnerId: PartnerId
  /** Load (and lock) this task's hold into the snapshot. */
  readonly taskId?: TaskId | undefined
  /** Load the partner's entry carrying this idempotency reference into the snapshot. */
  readonly reference?: string | undefined
}

/** A page of ledger entries and the total count. */
export interface EntryPage {
  readonly items: ReadonlyArray<LedgerEntry>
  /** Rows matching the filter in all pages. */
  readonly total: number
}

/** A grant the expiry sweep should expire. */
export interface DueGrant {
  readonly partnerId: PartnerId
  readonly grantId: string
}

/** A new balance alert; the store sets its state under the account lock. */
export interface NewBalanceAlert {
  readonly id: string
  readonly partnerId: PartnerId
  readonly thresholdMinor: number
  readonly createdAt: number
}

/** The operations of the ledger store port. */
export interface LedgerStoreShape {
  /**
   * Runs `rule` against the partner's account under an exclusive lock and writes its decision —
   * entries, hold and new totals — atomically. Concurrent calls for one partner serialize; a rule
   * that fails writes nothing. `followUp` runs after the decision is written, inside the same
   * transaction and lock: the outbox writes the movement's events there, so they commit or roll
   * back together. On SQL stores the write also joins an enclosing transaction.
   */
  readonly transact: <A>(
    request: TransactRequest,
    rule: (snapshot: Snapshot) => Either.Either<Decision<A>, LedgerError>,
    followUp?: (result: A) => Effect.Effect<void, StoreError>
  ) => Effect.Effect<A, LedgerError | StoreError>
  /** The account's lifetime totals (credited, used, reserved), zero for an account with no movement. */
  readonly totals: (partnerId: PartnerId) => Effect.Effect<AccountTotals, StoreError>
  /** The task's reservation, if there is one. */
  readonly hold: (partnerId: PartnerId, taskId: TaskId) => Effect.Effect<Hold | undefined, StoreError>
  /** Newest first. */
  readonly listEntries: (
    partnerId: PartnerId,
    filter: EntryFilter,
    offset: number,
    limit: number
  ) => Effect.Effect<EntryPage, StoreError>
  /** How many ledger entries match the filter (the total beside a page of `listEntries`). */
  readonly countEntries: (partnerId: PartnerId, filter: EntryFilter) => Effect.Effect<number, StoreError>
  /** Newest first, at most `maxRows`, read in bounded pages so memory stays flat. */
  readonly streamEntries: (
    partnerId: PartnerId,
    filter: EntryFilter,
    maxRows: number
  ) => Stream.Stream<LedgerEntry, StoreError>
  /** Charges summed per UTC day over a period (the cabinet's spending chart). */
  readonly usageByDay: (
    partnerId: PartnerId,
    fromMs: number,
    untilMs: number
  ) => Effect.Effect<ReadonlyArray<UsageDay>, StoreError>
  /** Records a low-balance emission unless one was recorded less than `minIntervalMs` ago; true when recorded. */
  readonly claimLowBalance: (
    partnerId: PartnerId,
    now: number,
    minIntervalMs: number
  ) => Effect.Effect<boolean, StoreError>
  /**
   * The partner's grants, at most `limit`: `all` newest first; `expiring`: those not expired yet
   * with money left and an `expiresAt`, soonest first.
   */
  readonly grants: (
    partnerId: PartnerId,
    options: { readonly select: "all" | "expiring"; readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<CreditGrant>, StoreError>
  /**
   * The account's totals and its `expiring` grants (as `grants` selects them) in one read: what
   * the balance shows. Optional; without it the ledger makes the two reads. A SQL store answers
   * in one statement, a round trip less on the partner API's most frequent read.
   */
  readonly totalsWithExpiring?: (
    partnerId: PartnerId,
    limit: number
  ) => Effect.Effect<{ readonly totals: AccountTotals; readonly expiring: ReadonlyArray<CreditGrant> }, StoreError>
  /** Grants past `expiresAt` at `now`, not yet expired, with money left; soonest first, at most `limit`. */
  readonly dueGrants: (now: number, limit: number) => Effect.Effect<ReadonlyArray<DueGrant>, StoreError>
  /** The soonest `expiresAt` of a grant not yet expired with money left, of any partner. */
  readonly nextGrantExpiry: Effect.Effect<number | undefined, StoreError>
  /**
   * Adds an alert under the account lock, in the state the current available balance puts it in;
   * answers undefined (and adds nothing) when the partner already keeps `maxAlerts`.
   */
  readonly createAlert: (
    alert: NewBalanceAlert,
    maxAlerts: number
  ) => Effect.Effect<BalanceAlert | undefined, StoreError>
  /** Oldest first. */
  readonly alerts: (partnerId: PartnerId) => Effect.Effect<ReadonlyArray<BalanceAlert>, StoreError>
  /** True when the alert existed. */
  readonly deleteAlert: (partnerId: PartnerId, alertId: string) => Effect.Effect<boolean, StoreError>
  /**
   * Called inside a movement's `transact`: moves every alert of the partner to the state
   * `availableMinor` puts it in and answers those that changed (their `crossings` counted up).
   */
  readonly settleAlerts: (
    partnerId: PartnerId,
    availableMinor: number
  ) => Effect.Effect<ReadonlyArray<BalanceAlert>, StoreError>
}

/** Port: applies ledger rules atomically and reads entries (SQL in adapters, memory in tests). */
export class LedgerStore extends Context.Tag("@frank/core/LedgerStore")<LedgerStore, LedgerStoreShape>() {}
