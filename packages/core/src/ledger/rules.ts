/**
 * The ledger's rules as pure functions of (account snapshot, command, context) → decision.
 * A store runs a rule under an exclusive lock of the partner's account and writes the decision
 * atomically; the rules never see a half-applied state and never touch I/O, so they are tested
 * exhaustively without a database.
 */
import { Either } from "effect"
import { type Minor, minorToFranks } from "../internal/money.js"
import { type AccountTotals, applyEntry, availableMinor, totalsAreValid } from "./Account.js"
import type { Attribution, EntryKind, LedgerEntry, NewLedgerEntry, TransactionType } from "./Entry.js"
import { DEFAULT_HOLD_TTL_MS, type Hold } from "./Hold.js"
import { type CreditGrant, DEFAULT_GRANT_PRIORITY, GRANT_PRIORITY_MAX, GRANT_PRIORITY_MIN } from "./CreditGrant.js"
import {
  applyGrantChanges,
  expiredTotal,
  type GrantChange,
  grantsAreConsistent,
  noGrantChange,
  reserveFromGrants,
  settleDraws,
  spendFromGrants
} from "./internal/grantDraws.js"
import { describeEntry, entryLabels } from "./internal/labels.js"
import {
  HoldAlreadySettled,
  HoldNotFound,
  InsufficientFunds,
  InvalidAmount,
  InvalidGrant,
  type LedgerError,
  ReferenceConflict
} from "./LedgerError.js"
import type { PartnerId, TaskId } from "../EntityIds.js"

/** What a rule sees: the locked account and, when the command names one, its hold or referenced entry. */
export interface Snapshot {
  readonly partnerId: PartnerId
  readonly totals: AccountTotals
  readonly hold: Hold | undefined
  readonly referenced: LedgerEntry | undefined
  /** The partner's grants with money left (spent-out grants are not loaded). */
  readonly grants: ReadonlyArray<CreditGrant>
  /**
   * `occurredAt` of the partner's newest entry, undefined before the first. A movement never
   * writes an earlier time (Ledger.ts), so write order and time order of a partner's rows agree.
   */
  readonly lastEntryAt?: number | undefined
}

/** Values from the outside world a rule needs, drawn before the lock is taken. */
export interface RuleContext {
  readonly now: number
  /** Fresh ids for new entries; a rule writes at most three. */
  readonly entryIds: readonly [string, string, string]
}

/** What a ledger rule decided: the entries to write, the hold to change and the result. */
export interface Decision<A> {
  readonly entries: ReadonlyArray<NewLedgerEntry>
  /** The hold to insert or replace, if the command changes one. */
  readonly hold: Hold | undefined
  /** Grants to insert or replace. */
  readonly grants: ReadonlyArray<CreditGrant>
  readonly totals: AccountTotals
  readonly result: A
}

/** Upper bound of one movement: 10 billion franks. Keeps every sum far inside 2^53. */
export const MAX_MOVEMENT_MINOR: Minor = 10_000_000_000 * 100

const checkAmount = (amountMinor: Minor, allowZero: boolean, allowNegative = false): InvalidAmount | undefined => {
  if (!Number.isSafeInteger(amountMinor))
    return new InvalidAmount({ message: "amount must be an integer number of minor units" })
  if (Math.abs(amountMinor) > MAX_MOVEMENT_MINOR)
    return new InvalidAmount({ message: "amount exceeds 10,000,000,000 ₣" })
  if (amountMinor < 0 && !allowNegative) return new InvalidAmount({ message: "amount must not be negative" })
  if (amountMinor === 0 && !allowZero) return new InvalidAmount({ message: "amount must not be zero" })
  return undefined
}

const insufficient = (requiredMinor: Minor, totals: AccountTotals) =>
  new InsufficientFunds({
    message: `insufficient funds: ${minorToFranks(requiredMinor)} ₣ required, ${minorToFranks(Math.max(0, availableMinor(totals)))} ₣ available`,
    requiredFranks: minorToFranks(requiredMinor),
    availableFranks: minorToFranks(Math.max(0, availableMinor(totals)))
  })

interface EntryDraft {
  readonly type: TransactionType
  readonly kind: EntryKind
  readonly amountMinor: Minor
  readonly taskId?: string | null
  readonly attribution?: Attribution | null
  readonly reference?: string | null
  readonly unitPriceMicros?: number | null
  readonly note?: string | undefined
}

const entry = (snap: Snapshot, ctx: RuleContext, index: 0 | 1 | 2, d: EntryDraft): NewLedgerEntry => ({
  id: ctx.entryIds[index],
  partnerId: snap.partnerId,
  type: d.type,
  kind: d.kind,
  amountMinor: d.amountMinor,
  unitPriceMicros: d.unitPriceMicros ?? null,
  taskId: d.taskId ?? null,
  attribution: d.attribution ?? null,
  reference: d.reference ?? null,
  label: entryLabels[d.kind],
  description: describeEntry(d.kind, { taskId: d.taskId ?? null, note: d.note }),
  occurredAt: ctx.now
})

const decide = <A>(
  snap: Snapshot,
  entries: ReadonlyArray<NewLedgerEntry>,
  hold: Hold | undefined,
  result: (totals: AccountTotals) => A,
  grants: ReadonlyArray<CreditGrant> = []
): Either.Either<Decision<A>, LedgerError> => {
  const totals = entries.reduce(applyEntry, snap.totals)
  // The invariant is checked here and again by the database; a violation is a bug in a rule.
  if (!totalsAreValid(totals) || !grantsAreConsistent(applyGrantChanges(snap.grants, grants), totals))
    throw new Error(`ledger invariant broken for ${snap.partnerId}: ${JSON.stringify(totals)}`)
  return Either.right({ entries, hold, grants, totals, result: result(totals) })
}

/** A decision that changes nothing and answers `result`. */
const unchanged = <A>(snap: Snapshot, result: A): Either.Either<Decision<A>, LedgerError> =>
  Either.right({ entries: [], hold: undefined, grants: [], totals: snap.totals, result })

// ---------------------------------------------------------------------------------------------
// Credits and other movements outside tasks

/** An expiring or prioritised bonus: the credit becomes a grant (CreditGrant.ts). */
export interface GrantTerms {
  /** Epoch ms, after now; omitted: the grant never expires (it still goes first by priority). */
  readonly expiresAt?: number | undefined
  /** 0..100, default 50; lower is spent first. */
  readonly priority?: number | undefined
}

export interface CreditCommand {
  readonly kind: "topup" | "bonus" | "adjustment"
  readonly amountMinor: Minor
  readonly attribution?: Attribution | undefined
  /** Idempotency reference: a repeated credit with the same reference returns the first entry. */
  readonly reference?: string | undefined
  readonly note?: string | undefined
  /** Only for kind `bonus`: makes the credit a grant. */
  readonly grant?: GrantTerms | undefined
}

export interface MovementResult {
  readonly entry: LedgerEntry | NewLedgerEntry
  readonly totals: AccountTotals
  /** True when the movement was recorded earlier and this call changed nothing. */
  readonly replayed: boolean
  /** The grant a bonus credit created. */
  readonly grant?: CreditGrant | undefined
}

const replayByReference = <A>(
  snap: Snapshot,
  amountMinor: Minor,
  kind: EntryKind,
  onReplay: (e: LedgerEntry) => A
): Either.Either<Decision<A>, LedgerError> | undefined => {
  const prior = snap.referenced
  if (prior === undefined) return undefined
  if (prior.kind !== kind || prior.amountMinor !== amountMinor)
    return Either.left(
      new ReferenceConflict({
        message: `reference ${prior.reference} was already used for a ${prior.kind} of ${minorToFranks(prior.amountMinor)} ₣`,
        reference: prior.reference ?? ""
      })
    )
  return unchanged(snap, onReplay(prior))
}

/** Why grant terms are refused, or undefined when they are fine. */
export const checkGrantTerms = (
  kind: CreditCommand["kind"],
  terms: GrantTerms,
  now: number
): InvalidGrant | undefined => {
  if (kind !== "bonus") return new InvalidGrant({ message: "only a bonus may expire or carry a priority" })
  const p = terms.priority
  if (p !== undefined && (!Number.isInteger(p) || p < GRANT_PRIORITY_MIN || p > GRANT_PRIORITY_MAX))
    return new InvalidGrant({ message: `priority must be an integer in ${GRANT_PRIORITY_MIN}..${GRANT_PRIORITY_MAX}` })
  if (terms.expiresAt !== undefined && (!Number.isSafeInteger(terms.expiresAt) || terms.expiresAt <= now))
    return new InvalidGrant({ message: "expiresAt must be in the future" })
  return undefined
}

export const credit = (
  snap: Snapshot,
  cmd: CreditCommand,
  ctx: RuleContext
): Either.Either<Decision<MovementResult>, LedgerError> => {
  const bad = checkAmount(cmd.amountMinor, false, cmd.kind === "adjustment")
  if (bad) return Either.left(bad)
  const replay = replayByReference(snap, cmd.amountMinor, cmd.kind, (e) => ({
    entry: e,
    totals: snap.totals,
    replayed: true
  }))
  if (replay) return replay
  const badGrant = cmd.grant === undefined ? undefined : checkGrantTerms(cmd.kind, cmd.grant, ctx.now)
  if (badGrant) return Either.left(badGrant)
  // A negative adjustment lowers total, so like any outflow it may not overdraw the account.
  if (cmd.amountMinor < 0 && availableMinor(snap.totals) < -cmd.amountMinor)
    return Either.left(insufficient(-cmd.amountMinor, snap.totals))
  const e = entry(snap, ctx, 0, {
    type: "topup",
    kind: cmd.kind,
    amountMinor: cmd.amountMinor,
    attribution: cmd.kind === "topup" ? (cmd.attribution ?? "personal") : null,
    reference: cmd.reference ?? null,
    note: cmd.note
  })
  const grant: CreditGrant | undefined =
    cmd.grant === undefined
      ? undefined
      : {
          id: e.id,
          partnerId: snap.partnerId,
          grantedMinor: e.amountMinor,
          remainingMinor: e.amountMinor,
          reservedMinor: 0,
          priority: cmd.grant.priority ?? DEFAULT_GRANT_PRIORITY,
          expiresAt: cmd.grant.expiresAt ?? null,
          createdAt: ctx.now,
          expiredAt: null
        }
  const grants =
    grant !== undefined
      ? [grant]
      : cmd.amountMinor < 0
        ? spendFromGrants(snap.grants, snap.totals, -cmd.amountMinor, true)
        : []
  return decide(snap, [e], undefined, (totals) => ({ entry: e, totals, replayed: false, grant }), grants)
}

export interface OutflowCommand {
  readonly amountMinor: Minor
  readonly reference?: string | undefined
  readonly note?: string | undefined
}

/**
 * Outflows outside tasks: `bonus_reversal` claws back a bonus (lowers total, not spend) and the
 * legacy `debit` charges directly (spend). Neither may overdraw: like voiding a credit block
 * elsewhere, only what is still available can be taken, and the caller learns so explicitly.
 * A debit spends grants first, as a reservation does; a reversal takes other money first.
 */
const outflow =
  (type: "bonus_reversal" | "debit", kind: "bonus_reversal" | "legacy_debit") =>
  (snap: Snapshot, cmd: OutflowCommand, ctx: RuleContext): Either.Either<Decision<MovementResult>, LedgerError> => {
    const bad = checkAmount(cmd.amountMinor, false)
    if (bad) return Either.left(bad)
    const replay = replayByReference(snap, cmd.amountMinor, kind, (e) => ({
      entry: e,
      totals: snap.totals,
      replayed: true
    }))
    if (replay) return replay
    if (availableMinor(snap.totals) < cmd.amountMinor) return Either.left(insufficient(cmd.amountMinor, snap.totals))
    const e = entry(snap, ctx, 0, {
      type,
      kind,
      amountMinor: cmd.amountMinor,
      reference: cmd.reference ?? null,
      note: cmd.note
    })
    const grants = spendFromGrants(snap.grants, snap.totals, cmd.amountMinor, type === "bonus_reversal")
    return decide(snap, [e], undefined, (totals) => ({ entry: e, totals, replayed: false }), grants)
  }

export const reverseBonus = outflow("bonus_reversal", "bonus_reversal")
export const debit = outflow("debit", "legacy_debit")

/** Gives back confirmed spend not tied to a task (an order refund); lowers `used`. */
export const refundSpend = (
  snap: Snapshot,
  cmd: OutflowCommand,
  ctx: RuleContext
): Either.Either<Decision<MovementResult>, LedgerError> => {
  const bad = checkAmount(cmd.amountMinor, false)
  if (bad) return Either.left(bad)
  const replay = replayByReference(snap, cmd.amountMinor, "spend_refund", (e) => ({
    entry: e,
    totals: snap.totals,
    replayed: true
  }))
  if (replay) return replay
  if (snap.totals.usedMinor < cmd.amountMinor)
    return Either.left(
      new InvalidAmount({
        message: `cannot refund ${minorToFranks(cmd.amountMinor)} ₣: only ${minorToFranks(snap.totals.usedMinor)} ₣ was spent`
      })
    )
  const e = entry(snap, ctx, 0, {
    type: "refund",
    kind: "spend_refund",
    amountMinor: cmd.amountMinor,
    reference: cmd.reference ?? null,
    note: cmd.note
  })
  return decide(snap, [e], undefined, (totals) => ({ entry: e, totals, replayed: false }))
}

// ---------------------------------------------------------------------------------------------
// Grant expiry

/** Grant money clawed back by a movement: at expiry, or when a hold gives it back afterwards. */
export interface ExpiredGrant {
  readonly grantId: string
  readonly amountMinor: Minor
  /** When the grant was swept. */
  readonly expiredAt: number
  /** The `bonus_reversal` row (kind `bonus_expired`) that took the money. */
  readonly entryId: string
}

export interface ExpireGrantCommand {
  readonly grantId: string
}

export interface ExpireResult {
  readonly totals: AccountTotals
  /** Empty when the grant was gone, already expired or not due yet. */
  readonly expired: ReadonlyArray<ExpiredGrant>
  readonly replayed: boolean
}

/**
 * The expiry sweep's rule: a due grant's unspent, unreserved remainder is clawed back by one
 * `bonus_reversal` row; its reserved part waits for its holds (see `settleHoldDraws`).
 */
export const expireGrant = (
  snap: Snapshot,
  cmd: ExpireGrantCommand,
  ctx: RuleContext
): Either.Either<Decision<ExpireResult>, LedgerError> => {
  const g = snap.grants.find((x) => x.id === cmd.grantId)
  if (g === undefined || g.expiredAt !== null || g.expiresAt === null || g.expiresAt > ctx.now)
    return unchanged(snap, { totals: snap.totals, expired: [], replayed: true })
  const clawed = g.remainingMinor - g.reservedMinor
  const expiredGrant: CreditGrant = { ...g, remainingMinor: g.reservedMinor, expiredAt: ctx.now }
  if (clawed === 0)
    return decide(snap, [], undefined, (totals) => ({ totals, expired: [], replayed: false }), [expiredGrant])
  const e = entry(snap, ctx, 0, { type: "bonus_reversal", kind: "bonus_expired", amountMinor: clawed })
  const expired = [{ grantId: g.id, amountMinor: clawed, expiredAt: ctx.now, entryId: e.id }]
  return decide(snap, [e], undefined, (totals) => ({ totals, expired, replayed: false }), [expiredGrant])
}

// ---------------------------------------------------------------------------------------------
// Task holds

export interface ReserveCommand {
  readonly taskId: TaskId
  readonly amountMinor: Minor
  readonly unitPriceMicros?: number | undefined
  readonly note?: string | undefined
  /** When the hold lapses (epoch ms, after now); default DEFAULT_HOLD_TTL_MS from now. */
  readonly expiresAt?: number | undefined
}

export interface HoldResult {
  readonly hold: Hold
  readonly totals: AccountTotals
  /** True when the hold was already in this state and nothing new was written. */
  readonly replayed: boolean
  /** Money the settlement gave back to grants that had expired, clawed back in the same write. */
  readonly expired: ReadonlyArray<ExpiredGrant>
}

const replayedHold = (snap: Snapshot, hold: Hold) =>
  unchanged(snap, { hold, totals: snap.totals, replayed: true, expired: [] })

export const reserve = (
  snap: Snapshot,
  cmd: ReserveCommand,
  ctx: RuleContext
): Either.Either<Decision<HoldResult>, LedgerError> => {
  // Repeating a reserve for the same task returns the first reservation, whatever its state.
  if (snap.hold !== undefined) return replayedHold(snap, snap.hold)
  const bad = checkAmount(cmd.amountMinor, false)
  if (bad) return Either.left(bad)
  const expiresAt = cmd.expiresAt ?? ctx.now + DEFAULT_HOLD_TTL_MS
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= ctx.now)
    return Either.left(new InvalidAmount({ message: "a hold must expire after it is made" }))
  if (availableMinor(snap.totals) < cmd.amountMinor) return Either.left(insufficient(cmd.amountMinor, snap.totals))
  const e = entry(snap, ctx, 0, {
    type: "reservation",
    kind: "task_hold",
    amountMinor: cmd.amountMinor,
    taskId: cmd.taskId,
    unitPriceMicros: cmd.unitPriceMicros ?? null,
    note: cmd.note
  })
  const drawn = reserveFromGrants(snap.grants, cmd.amountMinor)
  const hold: Hold = {
    partnerId: snap.partnerId,
    taskId: cmd.taskId,
    status: "open",
    reservedMinor: cmd.amountMinor,
    chargedMinor: 0,
    releasedMinor: 0,
    reservationEntryId: e.id,
    settlementEntryId: null,
    createdAt: ctx.now,
    expiresAt,
    settledAt: null,
    draws: drawn.draws
  }
  return decide(snap, [e], hold, (totals) => ({ hold, totals, replayed: false, expired: [] }), drawn.changed)
}

const missingHold = (taskId: TaskId) =>
  Either.left(new HoldNotFound({ message: `no reservation for task ${taskId}`, taskId }))

const alreadySettled = (hold: Hold, attempted: "confirm" | "refund") =>
  Either.left(
    new HoldAlreadySettled({
      message: `cannot ${attempted} task ${hold.taskId}: its reservation was already ${hold.status}`,
      taskId: hold.taskId,
      holdStatus: hold.status as "confirmed" | "refunded"
    })
  )

/**
 * What settling a hold does to its grants, for every settlement path (confirm, refund, and any
 * other that releases a hold): `chargedMinor` is spent along the draws, the rest returns to the
 * grants, and what returns to an expired grant is clawed back by one `bonus_reversal` row
 * (kind `bonus_expired`, entry id slot `index`), appended to `entries`.
 */
export const settleHoldDraws = (
  snap: Snapshot,
  ctx: RuleContext,
  hold: Hold,
  chargedMinor: Minor,
  index: 1 | 2
): {
  readonly change: GrantChange
  readonly entries: ReadonlyArray<NewLedgerEntry>
  readonly expired: ReadonlyArray<ExpiredGrant>
} => {
  const change = hold.draws.length === 0 ? noGrantChange : settleDraws(snap.grants, hold.draws, chargedMinor)
  const clawed = expiredTotal(change)
  if (clawed === 0) return { change, entries: [], expired: [] }
  const e = entry(snap, ctx, index, {
    type: "bonus_reversal",
    kind: "bonus_expired",
    amountMinor: clawed,
    taskId: null,
    note: `task ${hold.taskId}`
  })
  const expired = change.expired.map((x) => ({
    grantId: x.grant.id,
    amountMinor: x.amountMinor,
    expiredAt: x.grant.expiredAt ?? ctx.now,
    entryId: e.id
  }))
  return { change, entries: [e], expired }
}

export interface ConfirmCommand {
  readonly taskId: TaskId
  /** The actual cost; the charge is at most the reserved amount. */
  readonly amountMinor: Minor
  readonly unitPriceMicros?: number | undefined
}

export const confirm = (
  snap: Snapshot,
  cmd: ConfirmCommand,
  ctx: RuleContext
): Either.Either<Decision<HoldResult>, LedgerError> => {
  const hold = snap.hold
  if (hold === undefined) return missingHold(cmd.taskId)
  if (hold.status === "confirmed") return replayedHold(snap, hold)
  if (hold.status === "refunded") return alreadySettled(hold, "confirm")
  const bad = checkAmount(cmd.amountMinor, true)
  if (bad) return Either.left(bad)
  const charged = Math.min(cmd.amountMinor, hold.reservedMinor)
  const released = hold.reservedMinor - charged
  const charge = entry(snap, ctx, 0, {
    type: "confirm",
    kind: "task_charge",
    amountMinor: charged,
    taskId: hold.taskId,
    unitPriceMicros: cmd.unitPriceMicros ?? null
  })
  // The unused remainder is released in the same transaction and recorded as its own row.
  const release =
    released > 0
      ? [entry(snap, ctx, 1, { type: "refund", kind: "task_release", amountMinor: released, taskId: hold.taskId })]
      : []
  const settled: Hold = {
    ...hold,
    status: "confirmed",
    chargedMinor: charged,
    releasedMinor: released,
    settlementEntryId: charge.id,
    settledAt: ctx.now
  }
  const grants = settleHoldDraws(snap, ctx, hold, charged, 2)
  return decide(
    snap,
    [charge, ...release, ...grants.entries],
    settled,
    (totals) => ({ hold: settled, totals, replayed: false, expired: grants.expired }),
    grants.change.changed
  )
}

export interface RefundCommand {
  readonly taskId: TaskId
  readonly note?: string | undefined
  /**
   * Why the hold goes back: `failed` (its task failed; row kind `task_refund`, the default) or
   * `expired` (it lapsed unsettled; row kind `task_hold_expired`). The movement is the same.
   */
  readonly reason?: "failed" | "expired" | undefined
}

export const refund = (
  snap: Snapshot,
  cmd: RefundCommand,
  ctx: RuleContext
): Either.Either<Decision<HoldResult>, LedgerError> => {
  const hold = snap.hold
  if (hold === undefined) return missingHold(cmd.taskId)
  if (hold.status === "refunded") return replayedHold(snap, hold)
  if (hold.status === "confirmed") return alreadySettled(hold, "refund")
  const e = entry(snap, ctx, 0, {
    type: "refund",
    kind: cmd.reason === "expired" ? "task_hold_expired" : "task_refund",
    amountMinor: hold.reservedMinor,
    taskId: hold.taskId,
    note: cmd.note
  })
  const settled: Hold = {
    ...hold,
    status: "refunded",
    releasedMinor: hold.reservedMinor,
    settlementEntryId: e.id,
    settledAt: ctx.now
  }
  const grants = settleHoldDraws(snap, ctx, hold, 0, 1)
  return decide(
    snap,
    [e, ...grants.entries],
    settled,
    (totals) => ({ hold: settled, totals, replayed: false, expired: grants.expired }),
    grants.change.changed
  )
}
