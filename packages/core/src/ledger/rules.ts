/**
 * The ledger's rules as pure functions of (account snapshot, command, context) → decision.
 * A store runs a rule under an exclusive lock of the partner's account and writes the decision
 * atomically; the rules never see a half-applied state and never touch I/O, so they are tested
 * exhaustively without a database.
 */
import { Either } from "effect"
import { type Minor, minorToFranks } from "../Money.js"
import { type AccountTotals, applyEntry, availableMinor, totalsAreValid } from "./Account.js"
import type { Attribution, EntryKind, LedgerEntry, NewLedgerEntry, TransactionType } from "./Entry.js"
import type { Hold } from "./Hold.js"
import { describeEntry, entryLabels } from "./labels.js"
import {
  HoldAlreadySettled,
  HoldNotFound,
  InsufficientFunds,
  InvalidAmount,
  type LedgerError,
  ReferenceConflict
} from "./LedgerError.js"
import type { PartnerId } from "../EntityIds.js"

/** What a rule sees: the locked account and, when the command names one, its hold or referenced entry. */
export interface Snapshot {
  readonly partnerId: PartnerId
  readonly totals: AccountTotals
  readonly hold: Hold | undefined
  readonly referenced: LedgerEntry | undefined
}

/** Values from the outside world a rule needs, drawn before the lock is taken. */
export interface RuleContext {
  readonly now: number
  /** Fresh ids for new entries; a rule writes at most two. */
  readonly entryIds: readonly [string, string]
}

export interface Decision<A> {
  readonly entries: ReadonlyArray<NewLedgerEntry>
  /** The hold to insert or replace, if the command changes one. */
  readonly hold: Hold | undefined
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

const entry = (snap: Snapshot, ctx: RuleContext, index: 0 | 1, d: EntryDraft): NewLedgerEntry => ({
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
  result: (totals: AccountTotals) => A
): Either.Either<Decision<A>, LedgerError> => {
  const totals = entries.reduce(applyEntry, snap.totals)
  // The invariant is checked here and again by the database; a violation is a bug in a rule.
  if (!totalsAreValid(totals))
    throw new Error(`ledger invariant broken for ${snap.partnerId}: ${JSON.stringify(totals)}`)
  return Either.right({ entries, hold, totals, result: result(totals) })
}

// ---------------------------------------------------------------------------------------------
// Credits and other movements outside tasks

export interface CreditCommand {
  readonly kind: "topup" | "bonus" | "adjustment"
  readonly amountMinor: Minor
  readonly attribution?: Attribution | undefined
  /** Idempotency reference: a repeated credit with the same reference returns the first entry. */
  readonly reference?: string | undefined
  readonly note?: string | undefined
}

export interface MovementResult {
  readonly entry: LedgerEntry | NewLedgerEntry
  readonly totals: AccountTotals
  /** True when the movement was recorded earlier and this call changed nothing. */
  readonly replayed: boolean
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
  return Either.right({ entries: [], hold: undefined, totals: snap.totals, result: onReplay(prior) })
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
  return decide(snap, [e], undefined, (totals) => ({ entry: e, totals, replayed: false }))
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
    return decide(snap, [e], undefined, (totals) => ({ entry: e, totals, replayed: false }))
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
// Task holds

export interface ReserveCommand {
  readonly taskId: string
  readonly amountMinor: Minor
  readonly unitPriceMicros?: number | undefined
  readonly note?: string | undefined
}

export interface HoldResult {
  readonly hold: Hold
  readonly totals: AccountTotals
  /** True when the hold was already in this state and nothing new was written. */
  readonly replayed: boolean
}

export const reserve = (
  snap: Snapshot,
  cmd: ReserveCommand,
  ctx: RuleContext
): Either.Either<Decision<HoldResult>, LedgerError> => {
  // Repeating a reserve for the same task returns the first reservation, whatever its state.
  if (snap.hold !== undefined)
    return Either.right({
      entries: [],
      hold: undefined,
      totals: snap.totals,
      result: { hold: snap.hold, totals: snap.totals, replayed: true }
    })
  const bad = checkAmount(cmd.amountMinor, false)
  if (bad) return Either.left(bad)
  if (availableMinor(snap.totals) < cmd.amountMinor) return Either.left(insufficient(cmd.amountMinor, snap.totals))
  const e = entry(snap, ctx, 0, {
    type: "reservation",
    kind: "task_hold",
    amountMinor: cmd.amountMinor,
    taskId: cmd.taskId,
    unitPriceMicros: cmd.unitPriceMicros ?? null,
    note: cmd.note
  })
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
    settledAt: null
  }
  return decide(snap, [e], hold, (totals) => ({ hold, totals, replayed: false }))
}

const missingHold = (taskId: string) =>
  Either.left(new HoldNotFound({ message: `no reservation for task ${taskId}`, taskId }))

const alreadySettled = (hold: Hold, attempted: "confirm" | "refund") =>
  Either.left(
    new HoldAlreadySettled({
      message: `cannot ${attempted} task ${hold.taskId}: its reservation was already ${hold.status}`,
      taskId: hold.taskId,
      holdStatus: hold.status as "confirmed" | "refunded"
    })
  )

export interface ConfirmCommand {
  readonly taskId: string
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
  if (hold.status === "confirmed")
    return Either.right({
      entries: [],
      hold: undefined,
      totals: snap.totals,
      result: { hold, totals: snap.totals, replayed: true }
    })
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
  return decide(snap, [charge, ...release], settled, (totals) => ({ hold: settled, totals, replayed: false }))
}

export interface RefundCommand {
  readonly taskId: string
  readonly note?: string | undefined
}

export const refund = (
  snap: Snapshot,
  cmd: RefundCommand,
  ctx: RuleContext
): Either.Either<Decision<HoldResult>, LedgerError> => {
  const hold = snap.hold
  if (hold === undefined) return missingHold(cmd.taskId)
  if (hold.status === "refunded")
    return Either.right({
      entries: [],
      hold: undefined,
      totals: snap.totals,
      result: { hold, totals: snap.totals, replayed: true }
    })
  if (hold.status === "confirmed") return alreadySettled(hold, "refund")
  const e = entry(snap, ctx, 0, {
    type: "refund",
    kind: "task_refund",
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
  return decide(snap, [e], settled, (totals) => ({ hold: settled, totals, replayed: false }))
}
