/**
 * Frank's SQL on a connection the application holds: `inTransaction(client)` runs every statement
 * of the engine on the app's `pg` client, inside the transaction the app began. @effect/sql looks
 * for a `TransactionConnection` in the fiber's context before every statement; providing one made
 * of the app's client puts all of the engine's queries there, and the engine's own transactions
 * become savepoints (depth ≥ 1), so the app's COMMIT or ROLLBACK decides for all of them.
 */
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { pgTypes } from "@frank/adapters"
import { Effect, Stream } from "effect"
import type { ClientBase, QueryResult } from "pg"

type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

/**
 * One statement on `client`, with Frank's int8 parsing whatever the app's client parses (the
 * app's own queries keep theirs: `types` is given per query).
 */
const query = (client: ClientBase, text: string, values: ReadonlyArray<unknown>, rowMode?: "array") =>
  Effect.async<QueryResult, SqlError>((resume) => {
    client.query(
      { text, values: values as Array<unknown>, types: pgTypes, ...(rowMode === undefined ? {} : { rowMode }) },
      (err: Error | undefined, result: QueryResult) =>
        resume(
          err === undefined || err === null
            ? Effect.succeed(result)
            : Effect.fail(new SqlError({ cause: err, message: "Failed to execute statement" }))
        )
    )
  })

const rowsOf = (result: QueryResult | ReadonlyArray<QueryResult>): ReadonlyArray<object> =>
  Array.isArray(result) ? result.map((r: QueryResult) => r.rows ?? []) : ((result as QueryResult).rows ?? [])

/** A @effect/sql connection over the app's client; streams read the whole result at once. */
export const appConnection = (client: ClientBase): Connection => {
  const execute = (sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) =>
    Effect.map(query(client, sql, params), (r) => {
      const rows = rowsOf(r)
      return transformRows === undefined ? rows : transformRows(rows)
    })
  return {
    execute,
    executeRaw: (sql, params) => query(client, sql, params),
    executeUnprepared: execute,
    executeValues: (sql, params) =>
      Effect.map(
        query(client, sql, params, "array"),
        (r) => r.rows as unknown as ReadonlyArray<ReadonlyArray<unknown>>
      ),
    executeStream: (sql, params, transformRows) =>
      Stream.flatMap(Stream.fromEffect(execute(sql, params, transformRows)), (rows) => Stream.fromIterable(rows))
  }
}
