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
import type { PartnerId } from "../EntityIds.js"

export interface TransactRequest {
  readonly partnerId: PartnerId
  /** Load (and lock) this task's hold into the snapshot. */
  readonly taskId?: string | undefined
  /** Load the partner's entry carrying this idempotency reference into the snapshot. */
  readonly reference?: string | undefined
}

export interface EntryPage {
  readonly items: ReadonlyArray<LedgerEntry>
  /** Rows matching the filter in all pages. */
  readonly total: number
}

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
  readonly totals: (partnerId: PartnerId) => Effect.Effect<AccountTotals, StoreError>
  readonly hold: (partnerId: PartnerId, taskId: string) => Effect.Effect<Hold | undefined, StoreError>
  /** Newest first. */
  readonly listEntries: (
    partnerId: PartnerId,
    filter: EntryFilter,
    offset: number,
    limit: number
  ) => Effect.Effect<EntryPage, StoreError>
  readonly countEntries: (partnerId: PartnerId, filter: EntryFilter) => Effect.Effect<number, StoreError>
  /** Newest first, at most `maxRows`, read in bounded pages so memory stays flat. */
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
  /** Records a low-balance emission unless one was recorded less than `minIntervalMs` ago; true when recorded. */
  readonly claimLowBalance: (
    partnerId: PartnerId,
    now: number,
    minIntervalMs: number
  ) => Effect.Effect<boolean, StoreError>
}

export class LedgerStore extends Context.Tag("@frank/core/LedgerStore")<LedgerStore, LedgerStoreShape>() {}
