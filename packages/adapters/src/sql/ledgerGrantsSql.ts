/**
 * The SQL of grants and balance alerts (core's CreditGrant.ts and BalanceAlert.ts): the grants a
 * movement loads and writes under the account lock, the sweep's reads, and the alerts' rows.
 * Every query but the sweep's two is scoped by partner_id.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names the store errors in this module's types through it
import type { Errors, Ids, Ledger } from "@frank/core"
import { Effect } from "effect"
import { toStoreError } from "./ledgerErrors.js"
import {
  ALERT_COLUMNS,
  type BalanceAlertRow,
  type CreditGrantRow,
  type DueGrantRow,
  type ExpiringRow,
  expiringOfRows,
  GRANT_COLUMNS,
  grantRecord
} from "./ledgerRows.js"
import type { LedgerStoreShape } from "@frank/core/stores"

export const makeGrantSql = (sql: SqlClient.SqlClient) => {
  const grantColumns = sql.literal(GRANT_COLUMNS)
  const alertColumns = sql.literal(ALERT_COLUMNS)

  /** The grants with money left: what a rule draws from, settles and expires. */
  const liveGrants = (partnerId: Ids.PartnerId) =>
    sql<CreditGrantRow>`SELECT ${grantColumns} FROM ledger_credit_grants
      WHERE partner_id = ${partnerId} AND remaining_minor > 0 ORDER BY created_at, id`

  const upsertGrants = (grants: ReadonlyArray<CreditGrantRow>) =>
    sql`INSERT INTO ledger_credit_grants ${sql.insert(grants.map(grantRecord))}
      ON CONFLICT (partner_id, id) DO UPDATE SET remaining_minor = EXCLUDED.remaining_minor,
        reserved_minor = EXCLUDED.reserved_minor, expired_at = EXCLUDED.expired_at`

  const grants: LedgerStoreShape["grants"] = (partnerId, { select, limit }) =>
    (select === "all"
      ? sql<CreditGrantRow>`SELECT ${grantColumns} FROM ledger_credit_grants WHERE partner_id = ${partnerId}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`
      : sql<CreditGrantRow>`SELECT ${grantColumns} FROM ledger_credit_grants
          WHERE partner_id = ${partnerId} AND remaining_minor > 0 AND expired_at IS NULL AND expires_at IS NOT NULL
          ORDER BY expires_at, id LIMIT ${limit}`
    ).pipe(Effect.mapError(toStoreError("grants", partnerId)))

  // The balance's two reads as one statement: one row per expiring grant (the account's totals on
  // each), or one row without a grant; a partner without an account reads zero totals.
  const totalsWithExpiring: NonNullable<LedgerStoreShape["totalsWithExpiring"]> = (partnerId, limit) =>
    sql<ExpiringRow>`SELECT a.total_minor AS account_total_minor, a.used_minor AS account_used_minor,
        a.reserved_minor AS account_reserved_minor, g.*
      FROM (SELECT 1) AS one
      LEFT JOIN ledger_accounts a ON a.partner_id = ${partnerId}
      LEFT JOIN LATERAL (SELECT ${grantColumns} FROM ledger_credit_grants
          WHERE partner_id = ${partnerId} AND remaining_minor > 0 AND expired_at IS NULL AND expires_at IS NOT NULL
          ORDER BY expires_at, id LIMIT ${limit}) g ON true
      ORDER BY g.expires_at, g.id`.pipe(
      Effect.map(expiringOfRows),
      Effect.mapError(toStoreError("totalsWithExpiring", partnerId))
    )

  const dueGrants: LedgerStoreShape["dueGrants"] = (now, limit) =>
    sql<DueGrantRow>`SELECT partner_id, id AS grant_id FROM ledger_credit_grants
      WHERE expired_at IS NULL AND expires_at IS NOT NULL AND remaining_minor > 0 AND expires_at <= ${now}
      ORDER BY expires_at, id LIMIT ${limit}`.pipe(Effect.mapError(toStoreError("dueGrants")))

  const nextGrantExpiry: LedgerStoreShape["nextGrantExpiry"] = sql<{ next: number | null }>`
    SELECT min(expires_at) AS next FROM ledger_credit_grants
    WHERE expired_at IS NULL AND expires_at IS NOT NULL AND remaining_minor > 0`.pipe(
    Effect.map((rows) => rows[0]?.next ?? undefined),
    Effect.mapError(toStoreError("nextGrantExpiry"))
  )

  const lockAccount = (partnerId: Ids.PartnerId) =>
    Effect.zipRight(
      sql`INSERT INTO ledger_accounts (partner_id) VALUES (${partnerId}) ON CONFLICT (partner_id) DO NOTHING`,
      sql`SELECT 1 FROM ledger_accounts WHERE partner_id = ${partnerId} FOR UPDATE`
    )

  // Under the account lock, so no movement slips between reading available and storing the state.
  const createAlert: LedgerStoreShape["createAlert"] = (alert, maxAlerts) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          yield* lockAccount(alert.partnerId)
          const counted = yield* sql<{
            n: number
          }>`SELECT count(*) AS n FROM ledger_balance_alerts WHERE partner_id = ${alert.partnerId}`
          if ((counted[0]?.n ?? 0) >= maxAlerts) return undefined
          // In the state the current available balance puts it in (core's alertStateAt).
          const rows = yield* sql<BalanceAlertRow>`INSERT INTO ledger_balance_alerts
              (partner_id, id, threshold_minor, state, crossings, created_at)
            SELECT ${alert.partnerId}, ${alert.id}, ${alert.thresholdMinor},
              CASE WHEN total_minor - used_minor - reserved_minor < ${alert.thresholdMinor} THEN 'triggered' ELSE 'ok' END,
              0, ${alert.createdAt}
            FROM ledger_accounts WHERE partner_id = ${alert.partnerId}
            RETURNING ${alertColumns}`
          return rows[0]
        })
      )
      .pipe(Effect.catchTag("SqlError", (e) => Effect.fail(toStoreError("createAlert", alert.partnerId)(e))))

  const alerts: LedgerStoreShape["alerts"] = (partnerId) =>
    sql<BalanceAlertRow>`SELECT ${alertColumns} FROM ledger_balance_alerts WHERE partner_id = ${partnerId}
      ORDER BY created_at, id`.pipe(Effect.mapError(toStoreError("alerts", partnerId)))

  const deleteAlert: LedgerStoreShape["deleteAlert"] = (partnerId, alertId) =>
    sql`DELETE FROM ledger_balance_alerts WHERE partner_id = ${partnerId} AND id::text = ${alertId} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      Effect.mapError(toStoreError("deleteAlert", partnerId))
    )

  // One statement: only alerts whose state differs from what available says change.
  const settleAlerts: LedgerStoreShape["settleAlerts"] = (partnerId, available) =>
    sql<BalanceAlertRow>`UPDATE ledger_balance_alerts
      SET state = CASE WHEN ${available} < threshold_minor THEN 'triggered' ELSE 'ok' END, crossings = crossings + 1
      WHERE partner_id = ${partnerId}
        AND state <> CASE WHEN ${available} < threshold_minor THEN 'triggered' ELSE 'ok' END
      RETURNING ${alertColumns}`.pipe(Effect.mapError(toStoreError("settleAlerts", partnerId)))

  return {
    liveGrants,
    totalsWithExpiring,
    upsertGrants,
    grants,
    dueGrants,
    nextGrantExpiry,
    createAlert,
    alerts,
    deleteAlert,
    settleAlerts
  }
}
