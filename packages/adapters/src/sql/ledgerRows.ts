/**
 * The ledger's rows as the SQL client sees them. Result names are camelCased by the client and
 * int8 columns arrive as safe integers (pgTypes.ts), so a selected row already has the domain
 * shape; these helpers fix the column lists and turn domain values into insert records.
 */
import { Ledger } from "@frank/core"
import type { Effect } from "effect"
import type { LedgerStoreShape, Snapshot } from "@frank/core/stores"

/** Every column of a LedgerEntry, in one place so reads stay in step with the type. */
export const ENTRY_COLUMNS = [
  "partner_id",
  "id",
  "seq",
  "type",
  "kind",
  "amount_minor",
  "unit_price_micros",
  "task_id",
  "attribution",
  "reference",
  "label",
  "description",
  "occurred_at"
].join(", ")

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

/**
 * ENTRY_COLUMNS named as the fields of a LedgerEntry (`amount_minor AS "amountMinor"`), for reads
 * sent `withoutTransform`: the client's per-row renaming cost as much as fetching the row, which a
 * 10,000-row export pays 10,000 times.
 */
export const ENTRY_FIELDS = ENTRY_COLUMNS.split(", ")
  .map((c) => (camel(c) === c ? c : `${c} AS "${camel(c)}"`))
  .join(", ")

export const HOLD_COLUMNS = [
  "partner_id",
  "task_id",
  "status",
  "reserved_minor",
  "charged_minor",
  "released_minor",
  "reservation_entry_id",
  "settlement_entry_id",
  "created_at",
  "expires_at",
  "settled_at",
  "grant_draws AS draws"
].join(", ")

export const GRANT_COLUMNS = [
  "partner_id",
  "id",
  "granted_minor",
  "remaining_minor",
  "reserved_minor",
  "priority",
  "expires_at",
  "created_at",
  "expired_at"
].join(", ")

export const ALERT_COLUMNS = ["partner_id", "id", "threshold_minor", "state", "created_at", "crossings"].join(", ")

/** A grant row: the domain's CreditGrant (core's ledger/CreditGrant.ts). */
export type CreditGrantRow = Snapshot["grants"][number]
/** A balance alert row: the domain's BalanceAlert (core's ledger/BalanceAlert.ts). */
export type BalanceAlertRow = Effect.Effect.Success<ReturnType<LedgerStoreShape["alerts"]>>[number]
/** A grant due for expiry. */
export type DueGrantRow = Effect.Effect.Success<ReturnType<LedgerStoreShape["dueGrants"]>>[number]

/** A row of the balance's one read (ledgerGrantsSql.ts): a grant or none, with the account's totals. */
export type ExpiringRow = { [K in keyof CreditGrantRow]: CreditGrantRow[K] | null } & {
  readonly accountTotalMinor: number | null
  readonly accountUsedMinor: number | null
  readonly accountReservedMinor: number | null
}

/** The totals and grants of the balance's read; no account row (null totals) reads as zero. */
export const expiringOfRows = (
  rows: ReadonlyArray<ExpiringRow>
): { readonly totals: Ledger.AccountTotals; readonly expiring: ReadonlyArray<CreditGrantRow> } => {
  const first = rows[0]
  const totals =
    first === undefined || first.accountTotalMinor === null
      ? Ledger.emptyTotals
      : {
          totalMinor: first.accountTotalMinor,
          usedMinor: first.accountUsedMinor ?? 0,
          reservedMinor: first.accountReservedMinor ?? 0
        }
  const expiring = rows
    .filter((r) => r.id !== null)
    .map(
      (r): CreditGrantRow => ({
        partnerId: r.partnerId!,
        id: r.id!,
        grantedMinor: r.grantedMinor!,
        remainingMinor: r.remainingMinor!,
        reservedMinor: r.reservedMinor!,
        priority: r.priority!,
        expiresAt: r.expiresAt,
        createdAt: r.createdAt!,
        expiredAt: r.expiredAt
      })
    )
  return { totals, expiring }
}

export interface AccountRow {
  readonly totalMinor: number
  readonly usedMinor: number
  readonly reservedMinor: number
}

/** A partner without an account row has never moved money: all totals are zero. */
export const toTotals = (row: AccountRow | undefined): Ledger.AccountTotals =>
  row === undefined
    ? Ledger.emptyTotals
    : { totalMinor: row.totalMinor, usedMinor: row.usedMinor, reservedMinor: row.reservedMinor }

/** Insert record of a numbered entry (ledgerCounters.ts); `seq` is assigned by the identity column. */
export const entryRecord = ({
  entry: e,
  accountSeq,
  typeSeq
}: {
  readonly entry: Ledger.NewLedgerEntry
  readonly accountSeq: number
  readonly typeSeq: number
}): Record<string, unknown> => ({
  accountSeq,
  typeSeq,
  partnerId: e.partnerId,
  id: e.id,
  type: e.type,
  kind: e.kind,
  amountMinor: e.amountMinor,
  unitPriceMicros: e.unitPriceMicros,
  taskId: e.taskId,
  attribution: e.attribution,
  reference: e.reference,
  label: e.label,
  description: e.description,
  occurredAt: e.occurredAt
})

export const holdRecord = (h: Ledger.Hold): Record<string, unknown> => ({
  partnerId: h.partnerId,
  taskId: h.taskId,
  status: h.status,
  reservedMinor: h.reservedMinor,
  chargedMinor: h.chargedMinor,
  releasedMinor: h.releasedMinor,
  reservationEntryId: h.reservationEntryId,
  settlementEntryId: h.settlementEntryId,
  createdAt: h.createdAt,
  expiresAt: h.expiresAt,
  settledAt: h.settledAt,
  grantDraws: JSON.stringify(h.draws)
})

export const grantRecord = (g: CreditGrantRow): Record<string, unknown> => ({
  partnerId: g.partnerId,
  id: g.id,
  grantedMinor: g.grantedMinor,
  remainingMinor: g.remainingMinor,
  reservedMinor: g.reservedMinor,
  priority: g.priority,
  expiresAt: g.expiresAt,
  createdAt: g.createdAt,
  expiredAt: g.expiredAt
})
