/**
 * How the ledger store reports database failures. Every SqlError becomes a StoreError (the
 * outcome of the write is unknown to the caller, the API answers 500). A violated constraint gets
 * a message that names it: on `ledger_accounts` it means a rule let totals break an invariant,
 * which is a bug, never a normal refusal (refusals are typed LedgerErrors decided before writing).
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Errors, type Ids } from "@frank/core"

/** The fields of a node-postgres DatabaseError this module reads. */
interface PgErrorFields {
  readonly code?: unknown
  readonly constraint?: unknown
  readonly table?: unknown
  readonly message?: unknown
}

const CHECK_VIOLATION = "23514"
const UNIQUE_VIOLATION = "23505"

const fieldsOf = (cause: unknown): PgErrorFields => (typeof cause === "object" && cause !== null ? cause : {})

export const describeSqlError = (operation: string, partnerId: Ids.PartnerId, error: SqlError): string => {
  const pg = fieldsOf(error.cause)
  const constraint = typeof pg.constraint === "string" ? pg.constraint : "?"
  const table = typeof pg.table === "string" ? pg.table : "?"
  if (pg.code === CHECK_VIOLATION && table === "ledger_accounts")
    return `ledger invariant violated for partner ${partnerId}: ${operation} would break ${constraint}; this is a bug in a ledger rule, nothing was written`
  if (pg.code === CHECK_VIOLATION)
    return `ledger ${operation} for partner ${partnerId}: row rejected by ${table}.${constraint}; nothing was written`
  if (pg.code === UNIQUE_VIOLATION)
    return `ledger ${operation} for partner ${partnerId}: duplicate key in ${table} (${constraint}); nothing was written`
  const detail = typeof pg.message === "string" ? pg.message : error.message
  return `ledger store: ${operation} for partner ${partnerId} failed: ${detail}`
}

export const toStoreError =
  (operation: string, partnerId?: Ids.PartnerId) =>
  (error: SqlError): Errors.StoreError =>
    new Errors.StoreError({
      message: describeSqlError(operation, partnerId ?? ("(every partner)" as Ids.PartnerId), error),
      cause: error
    })
