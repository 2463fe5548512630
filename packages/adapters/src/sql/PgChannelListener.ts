/**
 * LISTEN on a connection of its own, for workers that must notice when they stop hearing.
 *
 * @effect/sql-pg's `listen` shares one connection it keeps while any stream uses it, ignores that
 * connection's errors (the stream goes silent instead of failing) and ends it with UNLISTEN and a
 * graceful close, which wait forever on a half-open connection. Here the stream fails as soon as
 * its connection reports an error or closes, TCP keep-alive is on, and closing the stream destroys
 * the socket at once: nothing waits on a connection that has stopped answering, and the next
 * stream opens a new one.
 */
import type { Socket } from "node:net"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Redacted, Stream } from "effect"
import pg from "pg"

export interface PgChannelListenerOptions {
  readonly url: Redacted.Redacted
  /** Shown in pg_stat_activity. */
  readonly applicationName?: string
  /** Idle time before the first TCP keep-alive probe (default 10 s). */
  readonly keepAliveInitialDelayMs?: number
}

/** pg keeps the socket on an internal field; destroying it is the only way to drop a connection that no longer answers. */
const socketOf = (client: pg.Client): Socket | undefined =>
  (client as unknown as { readonly connection?: { readonly stream?: Socket } }).connection?.stream

/** Payloads (non-empty) of `channel`'s notifications; fails when the connection errs or closes. */
export const listen = (options: PgChannelListenerOptions, channel: string): Stream.Stream<string, SqlError> =>
  Stream.asyncScoped<string, SqlError>((emit) =>
    Effect.gen(function* () {
      let closing = false
      const lost = (message: string, cause?: unknown) => {
        if (!closing) void emit.fail(new SqlError({ message, cause }))
      }
      const client = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const c = new pg.Client({
              connectionString: Redacted.value(options.url) as string,
              keepAlive: true,
              keepAliveInitialDelayMillis: options.keepAliveInitialDelayMs ?? 10_000,
              ...(options.applicationName === undefined ? {} : { application_name: options.applicationName })
            })
            // Before connecting: an 'error' event without a listener would crash the process.
            c.on("error", (e) => lost("LISTEN connection failed", e))
            c.on("end", () => lost("LISTEN connection closed"))
            await c.connect()
            return c
          },
          catch: (cause) => new SqlError({ message: "cannot open a LISTEN connection", cause })
        }),
        (c) =>
          Effect.sync(() => {
            closing = true
            c.removeAllListeners("notification")
            socketOf(c)?.destroy()
            // Already destroyed: this only settles pg's own bookkeeping.
            c.end().catch(() => {})
          })
      )
      client.on("notification", (message) => {
        if (message.channel === channel && message.payload) void emit.single(message.payload)
      })
      yield* Effect.tryPromise({
        try: () => client.query(`LISTEN ${client.escapeIdentifier(channel)}`),
        catch: (cause) => new SqlError({ message: `cannot LISTEN on ${channel}`, cause })
      })
    })
  )
