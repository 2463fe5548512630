/**
 * `createFrank`: the engine of the reference host (engine.ts) on the embedder's database, behind
 * plain async methods. One ManagedRuntime holds the engine; every method runs its effect there.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { Cabinet } from "@frank/adapters"
import { Ids, Pricing } from "@frank/core"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Redacted } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { ClientBase } from "pg"
import { HostConfig } from "../config/HostConfig.js"
import { type EngineServices, engineLayer } from "../engine.js"
import { Metrics } from "../metrics/Metrics.js"
import { SandboxClock } from "../sandbox/SandboxClock.js"
import { makeNotifyOrigin } from "../workers/notifyOrigin.js"
import { databaseLayer, isPostgres, schema } from "./database.js"
import { type FrankApi, makeFrankApi } from "./FrankApi.js"
import { FrankError } from "./FrankError.js"
import { type FrankMounts, makeMounts } from "./mount.js"
import { basePathOf, type FrankOptions, hostConfigOf } from "./options.js"
import { runOn } from "./run.js"
import { embedTracing } from "./tracing.js"
import { bindToClient, embeddedRefusal, type FrankTransaction, runTransaction } from "./transactions.js"
import { type FrankWorker, makeWorker } from "./worker.js"

/** An embedded Frank: the API, the worker, transactions and, for Effect users, the runtime. */
export interface Frank extends FrankApi {
  /** The webhook delivery worker of this process; not started by `createFrank`. */
  readonly worker: FrankWorker
  /**
   * The same API on your `pg` client, inside the transaction you began (`BEGIN`): Frank's rows
   * and events commit or roll back with yours, and the worker is woken by your COMMIT. PostgreSQL
   * only (rejects with IN_TRANSACTION_NEEDS_POSTGRES on embedded PGlite: use `transaction`).
   */
  inTransaction(client: ClientBase): FrankApi
  /**
   * Runs `fn` in a transaction on Frank's connection, committed when `fn` resolves and rolled
   * back when it rejects (its error is rethrown as it was); `tx.query` runs your own statements
   * in it. Works on PostgreSQL and on embedded PGlite.
   */
  transaction<A>(fn: (tx: FrankTransaction) => Promise<A>): Promise<A>
  /**
   * Serves the partner API (`{basePath}/v1/…`), the cabinet (`{basePath}/cabinet`) and, with the
   * `admin` option, the admin API (`{basePath}/admin/v1/…`) to a Fetch API request; 404 outside
   * the base path. Mount it in Hono, a Next.js route handler, Bun, Deno.
   */
  fetch(request: Request): Promise<Response>
  /**
   * The same for Node's `(req, res)`: Express (`app.use(frank.node)`, before body parsers),
   * Fastify (`reply.hijack()` then `frank.node(request.raw, reply.raw)`, in a scope whose content
   * type parser leaves the body unread), NestJS, node:http. See `examples/frameworks/`.
   * Requests outside the base path go to `next`, or answer 404 without it.
   */
  node(req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void
  /** The engine's runtime, for code that speaks Effect (`frank.runtime.runPromise(Ledger.Ledger)`). */
  readonly runtime: ManagedRuntime.ManagedRuntime<EngineServices | SqlClient.SqlClient, unknown>
  /** Stops the worker (in-flight deliveries finish), then closes the database and the engine. */
  close(): Promise<void>
}

/** Everything the runtime holds below the engine's services: the database and the host's pieces. */
const runtimeLayer = (options: FrankOptions, notifyOrigin: ReturnType<typeof makeNotifyOrigin>) => {
  const config = hostConfigOf(options)
  const catalog = options.pricingCatalog ?? Pricing.sampleCatalog
  const engine = engineLayer(config, Redacted.make(options.pepper), catalog, notifyOrigin, {
    announce: isPostgres(options),
    worker: options.worker
  })
  return engine.pipe(
    Layer.provideMerge(databaseLayer(options, options)),
    Layer.provideMerge(
      Layer.mergeAll(
        Metrics.layer,
        Layer.succeed(HostConfig, config),
        SandboxClock.layer(SandboxClock.make(false)),
        Ids.Ids.layer
      )
    ),
    // The embedder's tracer provider, else the tracer off (as in the host without an exporter).
    Layer.provide(embedTracing(options.tracerProvider))
  )
}

/** Why the engine did not start, as a FrankError (START_FAILED unless the cause is one already). */
const startFailure = (cause: Cause.Cause<unknown>): FrankError => {
  const error = Cause.squash(cause)
  if (error instanceof FrankError) return error
  const message = error instanceof Error ? error.message : String(error)
  return new FrankError(
    { code: "START_FAILED", status: 500, message: `Frank could not start: ${message}` },
    { cause: error }
  )
}

/**
 * Opens the database (migrating it unless `migrate: false`), builds the engine and answers its
 * Promise API. Rejects with a FrankError (START_FAILED, SCHEMA_INVALID, ADMIN_TOKEN_EMPTY) when it
 * cannot.
 */
export const createFrank = async (options: FrankOptions): Promise<Frank> => {
  if (options.admin !== undefined && options.admin.token.length === 0)
    throw new FrankError({
      code: "ADMIN_TOKEN_EMPTY",
      status: 400,
      message: "admin.token is empty: give a long random secret, or leave `admin` out to keep the admin API off"
    })
  const notifyOrigin = makeNotifyOrigin()
  const layer = runtimeLayer(options, notifyOrigin)
  const runtime = ManagedRuntime.make(layer)
  const started = await runtime.runPromiseExit(Effect.void)
  if (Exit.isFailure(started)) {
    await runtime.dispose()
    throw startFailure(started.cause)
  }
  const config = hostConfigOf(options)
  const signInLink = (token: string) => Cabinet.signInUrl(config.publicBaseUrl, token)
  const run = runOn(runtime)
  const worker = makeWorker(runtime, { listen: isPostgres(options), isOwnNotification: notifyOrigin.isOwn })
  // Built on first use: an embedder that only calls methods never pays for the HTTP stack.
  let mounts: Promise<FrankMounts> | undefined
  const mounted = () => {
    mounts ??= makeMounts(runtime, layer, config, basePathOf(options))
    return mounts
  }
  return {
    ...makeFrankApi(run, signInLink),
    worker,
    inTransaction: (client) => {
      if (!isPostgres(options)) throw embeddedRefusal()
      return bindToClient(run, client, signInLink, schema(options))
    },
    transaction: (fn) => runTransaction(runtime, run, signInLink, fn),
    fetch: (request) => mounted().then((m) => m.fetch(request)),
    node: (req, res, next) =>
      void mounted().then(
        (m) => m.node(req, res, next),
        (err: unknown) => (next === undefined ? void res.writeHead(500).end() : next(err))
      ),
    runtime,
    close: async () => {
      await worker.stop()
      if (mounts !== undefined) await (await mounts).dispose()
      await runtime.dispose()
    }
  }
}
