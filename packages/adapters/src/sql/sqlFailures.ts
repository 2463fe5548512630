/**
 * For transactions that carry the caller's own failures next to the database's: only SqlErrors
 * become StoreErrors, the rest pass through untouched.
 */
import { SqlError } from "@effect/sql/SqlError"
import type { Errors } from "@frank/core"

export const sqlFailures =
  (toStoreError: (cause: SqlError) => Errors.StoreError) =>
  <E>(e: E | SqlError): E | Errors.StoreError =>
    e instanceof SqlError ? toStoreError(e) : e
