/**
 * The application's transaction. `inTransaction(client)`: the API bound to the app's `pg` client
 * after its `BEGIN`; `transaction(fn)`: a transaction Frank opens on its own connection, in which
 * the app runs its statements too (`tx.query`), the only way on embedded PGlite, whose single
 * connection is Frank's.
 *
 * Waking the delivery worker at the commit and not before: in the app's transaction the outbox's
 * own wake does nothing (the transaction is still open). Each bound call therefore queues a
 * `pg_notify` on the app's connection, which PostgreSQL delivers when, and only if, the app
 * commits; the worker LISTENs and wakes. In `transaction(fn)` Frank commits itself and wakes the
 * worker right after.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { webhookNotifyChannel } from "@frank/adapters"
import { Events } from "@frank/core"
import { Cause, Effect, Exit, type ManagedRuntime, Option } from "effect"
import type { ClientBase } from "pg"
import type { EngineServices } from "../engine.js"
import { appConnection } from "./appConnection.js"
import { type FrankApi, makeFrankApi } from "./FrankApi.js"
import { FrankError, fromCause } from "./FrankError.js"
import { type Run, runThrough } from "./run.js"

/**
 * The payload of a commit's NOTIFY: not this instance's own announcer payload, so its listener
 * passes it on to the worker.
 */
export const COMMIT_NOTIFY_PAYLOAD = "due:app-transaction"

/** The API inside a `transaction(fn)`, with the app's own statements on the same connection. */
export interface FrankTransaction extends FrankApi {
  /** Runs one of your own statements in the transaction (`$1` parameters); answers its rows. */
  query<Row = Record<string, unknown>>(text: string, values?: ReadonlyArray<unknown>): Promise<ReadonlyArray<Row>>
  /**
   * The same, each row an array of its values in column order: what an ORM's proxy driver wants
   * (drizzle-orm/pg-proxy), and safe when two columns share a name.
   */
  queryValues(text: string, values?: ReadonlyArray<unknown>): Promise<ReadonlyArray<ReadonlyArray<unknown>>>
}

/** Every effect of `run` on `conn`, as a statement of a transaction already open (depth 1). */
const boundTo = (run: Run, conn: Connection, after: Effect.Effect<void, unknown>): Run =>
  runThrough(run, (effect) =>
    effect.pipe(Effect.zipLeft(Effect.orDie(after)), Effect.provideService(SqlClient.TransactionConnection, [conn, 1]))
  )

/**
 * Runs `effect` with Frank's schema as the transaction's search_path and gives the app its own
 * back after, so the app's unqualified names (its own `payments`, say) never reach Frank's tables.
 */
const inSchema =
  (conn: Connection, schema: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.acquireUseRelease(
      Effect.orDie(
        Effect.flatMap(conn.executeRaw("SELECT current_setting('search_path') AS path", []), (r) =>
          Effect.as(
            conn.executeRaw("SELECT set_config('search_path', $1, true)", [schema]),
            (r as { rows: ReadonlyArray<{ path: string }> }).rows[0]?.path ?? ""
          )
        )
      ),
      () => effect,
      (path) => Effect.ignore(conn.executeRaw("SELECT set_config('search_path', $1, true)", [path]))
    )

/** `inTransaction(client)`: the API on the app's client, each call followed by its commit's NOTIFY. */
export const bindToClient = (
  run: Run,
  client: ClientBase,
  signInLink: (token: string) => string,
  schema: string
): FrankApi => {
  const conn = appConnection(client)
  const notify = conn.executeRaw("SELECT pg_notify($1, $2)", [webhookNotifyChannel(schema), COMMIT_NOTIFY_PAYLOAD])
  return makeFrankApi(runThrough(boundTo(run, conn, notify), inSchema(conn, schema)), signInLink)
}

/** A failure of the app's own code inside `transaction(fn)`: rethrown as it was. */
class AppFailure {
  readonly _tag = "AppFailure"
  constructor(readonly error: unknown) {}
}

/** `transaction(fn)`: Frank's transaction on its own connection; commits when `fn` resolves, else rolls back. */
export const runTransaction = async <A>(
  runtime: ManagedRuntime.ManagedRuntime<EngineServices | SqlClient.SqlClient, unknown>,
  run: Run,
  signInLink: (token: string) => string,
  fn: (tx: FrankTransaction) => Promise<A>
): Promise<A> => {
  const program = Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      // withTransaction has just provided it; read as an option so the type needs no provider.
      Effect.flatMap(Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.getOrThrow), ([conn]) => {
        const api = makeFrankApi(boundTo(run, conn, Effect.void), signInLink)
        const query = <Row>(text: string, values: ReadonlyArray<unknown> = []) =>
          run(Effect.map(conn.executeRaw(text, values), (r) => (r as { rows: ReadonlyArray<Row> }).rows))
        const queryValues = (text: string, values: ReadonlyArray<unknown> = []) => run(conn.executeValues(text, values))
        return Effect.tryPromise({ try: () => fn({ ...api, query, queryValues }), catch: (e) => new AppFailure(e) })
      })
    )
  ).pipe(Effect.tap(() => Effect.flatMap(Events.DeliveryWakeup, (w) => w.signal)))
  const exit = await runtime.runPromiseExit(program)
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && failure.value instanceof AppFailure) throw failure.value.error
  throw fromCause(exit.cause)
}

/** Why `inTransaction` refuses on embedded PGlite, whose one connection the app cannot hold. */
export const embeddedRefusal = () =>
  new FrankError({
    code: "IN_TRANSACTION_NEEDS_POSTGRES",
    status: 400,
    message:
      "inTransaction(client) binds Frank to your pg connection; on embedded PGlite Frank owns the only connection: use frank.transaction(async (tx) => …) and tx.query for your own statements"
  })
