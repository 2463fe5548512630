/**
 * How money moves between a partner's grants (CreditGrant.ts) and the rest of the balance: pure
 * functions over the grants a snapshot holds, returning the grants they change. The ledger rules
 * call them; `grantsAreConsistent` is the invariant they keep with the account totals.
 */
import type { Minor } from "../../internal/money.js"
import { type AccountTotals, availableMinor } from "../Account.js"
import { type CreditGrant, drawOrder, type GrantDraw, grantAvailableMinor, grantIsValid } from "../CreditGrant.js"

/** A grant's money that came back after it expired, and so is clawed back. */
export interface ExpiredReturn {
  readonly grant: CreditGrant
  readonly amountMinor: Minor
}

/** What a change to grants produced: the grants to write and what goes back to expired ones. */
export interface GrantChange {
  readonly changed: ReadonlyArray<CreditGrant>
  readonly expired: ReadonlyArray<ExpiredReturn>
}

export const noGrantChange: GrantChange = { changed: [], expired: [] }

const inOrder = (grants: ReadonlyArray<CreditGrant>): CreditGrant[] =>
  grants.filter((g) => grantAvailableMinor(g) > 0).sort(drawOrder)

/** Σ of what live grants can give. */
export const grantsAvailableMinor = (grants: ReadonlyArray<CreditGrant>): Minor =>
  grants.reduce((sum, g) => sum + grantAvailableMinor(g), 0)

/** A reservation draws `amountMinor` from grants in draw order; the rest comes from other money. */
export const reserveFromGrants = (
  grants: ReadonlyArray<CreditGrant>,
  amountMinor: Minor
): { readonly draws: ReadonlyArray<GrantDraw>; readonly changed: ReadonlyArray<CreditGrant> } => {
  const draws: GrantDraw[] = []
  const changed: CreditGrant[] = []
  let left = amountMinor
  for (const g of inOrder(grants)) {
    if (left === 0) break
    const take = Math.min(left, grantAvailableMinor(g))
    draws.push({ grantId: g.id, amountMinor: take })
    changed.push({ ...g, reservedMinor: g.reservedMinor + take })
    left -= take
  }
  return { draws, changed }
}

/**
 * An outflow outside holds (legacy debit, bonus reversal, negative adjustment) spends from grants.
 * Spending (`poolFirst` false) takes grants first like a reservation; a correction takes the money
 * outside grants first and grants only for what that does not cover.
 */
export const spendFromGrants = (
  grants: ReadonlyArray<CreditGrant>,
  totals: AccountTotals,
  amountMinor: Minor,
  poolFirst: boolean
): ReadonlyArray<CreditGrant> => {
  const pool = availableMinor(totals) - grantsAvailableMinor(grants)
  let left = poolFirst ? Math.max(0, amountMinor - pool) : amountMinor
  const changed: CreditGrant[] = []
  for (const g of inOrder(grants)) {
    if (left === 0) break
    const take = Math.min(left, grantAvailableMinor(g))
    changed.push({ ...g, remainingMinor: g.remainingMinor - take })
    left -= take
  }
  return changed
}

/**
 * Settles a hold's draws: `chargedMinor` is spent along the draws in their order and the rest goes
 * back to the grants it came from; what goes back to a grant that expired meanwhile is clawed back.
 */
export const settleDraws = (
  grants: ReadonlyArray<CreditGrant>,
  draws: ReadonlyArray<GrantDraw>,
  chargedMinor: Minor
): GrantChange => {
  if (draws.length === 0) return noGrantChange
  const byId = new Map(grants.map((g) => [g.id, g]))
  const changed: CreditGrant[] = []
  const expired: ExpiredReturn[] = []
  let charge = chargedMinor
  for (const d of draws) {
    const g = byId.get(d.grantId)
    // A hold's grant keeps reservedMinor > 0 until the hold settles, so the snapshot has it.
    if (g === undefined) throw new Error(`grant ${d.grantId} of a hold is missing from the snapshot`)
    const spent = Math.min(charge, d.amountMinor)
    charge -= spent
    const back = d.amountMinor - spent
    const clawed = g.expiredAt === null ? 0 : back
    const next = {
      ...g,
      reservedMinor: g.reservedMinor - d.amountMinor,
      remainingMinor: g.remainingMinor - spent - clawed
    }
    byId.set(g.id, next)
    if (clawed > 0) expired.push({ grant: next, amountMinor: clawed })
  }
  for (const d of draws) {
    const g = byId.get(d.grantId)!
    if (!changed.some((c) => c.id === g.id)) changed.push(g)
  }
  return { changed, expired }
}

/** Σ of expired returns. */
export const expiredTotal = (change: GrantChange): Minor => change.expired.reduce((s, e) => s + e.amountMinor, 0)

/**
 * The invariant between grants and totals: every grant valid, and the grants' unspent money never
 * more than the account's unspent money (available + reserved); what is left is non-expiring.
 */
export const grantsAreConsistent = (grants: ReadonlyArray<CreditGrant>, totals: AccountTotals): boolean =>
  grants.every(grantIsValid) &&
  grants.reduce((s, g) => s + g.remainingMinor, 0) <= totals.totalMinor - totals.usedMinor &&
  grantsAvailableMinor(grants) <= availableMinor(totals)

/** The snapshot's grants with `changed` applied, for checks after a decision. */
export const applyGrantChanges = (
  grants: ReadonlyArray<CreditGrant>,
  changed: ReadonlyArray<CreditGrant>
): ReadonlyArray<CreditGrant> => {
  if (changed.length === 0) return grants
  const byId = new Map(grants.map((g) => [g.id, g]))
  for (const g of changed) byId.set(g.id, g)
  return [...byId.values()]
}
