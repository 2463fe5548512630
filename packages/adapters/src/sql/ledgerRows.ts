/**
 * The ledger's rows as the SQL client sees them. Result names are camelCased by the client and
 * int8 columns arrive as safe integers (pgTypes.ts), so a selected row already has the domain
 * shape; these helpers fix the column lists and turn domain values into insert records.
 */
import { type AccountTotals, emptyTotals, type Hold, type NewLedgerEntry } from "@frank/core"

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
  "settled_at"
].join(", ")

export interface AccountRow {
  readonly totalMinor: number
  readonly usedMinor: number
  readonly reservedMinor: number
}

/** A partner without an account row has never moved money: all totals are zero. */
export const toTotals = (row: AccountRow | undefined): AccountTotals =>
  row === undefined
    ? emptyTotals
    : { totalMinor: row.totalMinor, usedMinor: row.usedMinor, reservedMinor: row.reservedMinor }

/** Insert record of an entry; `seq` is assigned by the identity column. */
export const entryRecord = (e: NewLedgerEntry): Record<string, unknown> => ({
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

export const holdRecord = (h: Hold): Record<string, unknown> => ({
  partnerId: h.partnerId,
  taskId: h.taskId,
  status: h.status,
  reservedMinor: h.reservedMinor,
  chargedMinor: h.chargedMinor,
  releasedMinor: h.releasedMinor,
  reservationEntryId: h.reservationEntryId,
  settlementEntryId: h.settlementEntryId,
  createdAt: h.createdAt,
  settledAt: h.settledAt
})
