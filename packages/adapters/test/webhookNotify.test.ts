/**
 * How the SQL side tells other processes about due deliveries: the store's NOTIFY inside the
 * writing transaction (default), or nothing from the store and a coalesced NOTIFY after commit from
 * PgNotifyAnnouncer. NOTIFY channels are per database and other test files notify on the same
 * channel meanwhile, so every check looks only at payloads this file made up.
 */
import { randomUUID } from "node:crypto"
import { type AddressInfo, connect, createServer, type Socket } from "node:net"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Access, Events, Ids, Webhooks } from "@frank/core"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Redacted, Ref, Stream } from "effect"
import {
  checkNotifyPayload,
  DatabaseSchema,
  MAX_NOTIFY_PAYLOAD_BYTES,
  PgChannelListener,
  PgNotifyAnnouncer,
  SqlWebhookStore,
  TestDatabase,
  webhookNotifyChannel
} from "../src/index.js"
import { testPartner } from "@frank/core/testing"

describe("NOTIFY payload check", () => {
  layer(Layer.empty)((it) => {
    it.effect("accepts 1 to 7,999 bytes and dies otherwise", () =>
      Effect.gen(function* () {
        expect(yield* checkNotifyPayload("due")).toBe("due")
        expect(yield* checkNotifyPayload("x".repeat(MAX_NOTIFY_PAYLOAD_BYTES - 1))).toHaveLength(
          MAX_NOTIFY_PAYLOAD_BYTES - 1
        )
        for (const bad of ["", "x".repeat(MAX_NOTIFY_PAYLOAD_BYTES), "é".repeat(MAX_NOTIFY_PAYLOAD_BYTES / 2)]) {
          const exit = yield* Effect.exit(checkNotifyPayload(bad))
          expect(exit._tag, `${bad.length} characters`).toBe("Failure")
        }
      })
    )
  })
})

/** The wake-up channel of the test database's schema. */
const schemaChannel = Effect.map(DatabaseSchema.DatabaseSchema, (s) => webhookNotifyChannel(s.name))

/**
 * Sends `payload` on the channel every 20 ms until `heard` holds (a listener's LISTEN is issued
 * only once its stream runs, so the first ones may go unheard); dies after 10 s.
 */
const notifyUntil = <E, R>(payload: string, heard: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const channel = yield* schemaChannel
    for (let i = 0; i < 500; i++) {
      if (yield* heard) return
      yield* sql`SELECT pg_notify(${channel}, ${payload})`
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.dieMessage(`${payload} was never heard`)
  })

/**
 * Listens on the channel (and makes sure it does: a probe of its own must come back first, as
 * LISTEN is issued only when the stream starts), runs `action`, waits `quietMs` more for
 * stragglers, and answers how many notifications carrying `payload` arrived.
 */
const notificationsDuring = <A, E, R>(payload: string, action: Effect.Effect<A, E, R>, quietMs = 300) =>
  Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const channel = yield* schemaChannel
    const probe = `probe:${randomUUID()}`
    const ready = yield* Ref.make(false)
    const heard = yield* Ref.make(0)
    const listening = yield* Effect.fork(
      Stream.runForEach(pg.listen(channel), (p) =>
        p === probe ? Ref.set(ready, true) : p === payload ? Ref.update(heard, (n) => n + 1) : Effect.void
      )
    )
    yield* notifyUntil(probe, Ref.get(ready))
    yield* action
    yield* Effect.sleep(`${quietMs} millis`)
    yield* Fiber.interrupt(listening)
    return yield* Ref.get(heard)
  })

const url = process.env.DATABASE_URL

if (url !== undefined && url.length > 0) {
  const Database = TestDatabase.layerPostgres(url, { maxConnections: 4 })
  const engineWith = (store: ReturnType<typeof SqlWebhookStore.layerWith>) =>
    Webhooks.Webhooks.layer.pipe(
      Layer.provideMerge(Events.Outbox.layerWithWakeup),
      Layer.provideMerge(store),
      Layer.provideMerge(
        Layer.mergeAll(
          Ids.Ids.layer,
          Access.Secrets.layer(Redacted.make("pepper")),
          Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true })
        )
      ),
      Layer.provideMerge(Database)
    )

  /** A new event to a new endpoint, then a replay of its delivery: the two writes that make deliveries due. */
  const appendThenReplay = (
    notify: (
      action: Effect.Effect<unknown, unknown, Webhooks.Webhooks>
    ) => Effect.Effect<
      number,
      unknown,
      Webhooks.Webhooks | PgClient.PgClient | SqlClient.SqlClient | DatabaseSchema.DatabaseSchema
    >
  ) =>
    Effect.gen(function* () {
      const webhooks = yield* Webhooks.Webhooks
      const sql = yield* SqlClient.SqlClient
      const partnerId = testPartner(`p_${randomUUID()}`)
      const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/notify" })
      const onAppend = yield* notify(webhooks.sendTest(partnerId, endpoint.id))
      const [delivery] = yield* sql<{
        id: Ids.DeliveryId
      }>`SELECT id FROM webhook_deliveries WHERE partner_id = ${partnerId}`
      yield* sql`UPDATE webhook_deliveries SET status = 'dead_lettered', attempts = 6, next_attempt_at = NULL WHERE partner_id = ${partnerId}`
      const onReplay = yield* notify(webhooks.replay(partnerId, delivery!.id))
      return [onAppend, onReplay]
    })

  const inTransaction = `due:${randomUUID()}`
  layer(engineWith(SqlWebhookStore.layerWith({ notifyPayload: inTransaction })), {
    timeout: 60_000,
    excludeTestServices: true
  })("SQL webhook store, NOTIFY in the transaction (default)", (it) => {
    it.effect("an appended event and a replay each send one NOTIFY with the configured payload", () =>
      Effect.gen(function* () {
        expect(yield* appendThenReplay((action) => notificationsDuring(inTransaction, action))).toEqual([1, 1])
      })
    )
  })

  const unused = `due:${randomUUID()}`
  layer(engineWith(SqlWebhookStore.layerWith({ notify: "none", notifyPayload: unused })), {
    timeout: 60_000,
    excludeTestServices: true
  })("SQL webhook store, notify none", (it) => {
    it.effect("sends nothing when it appends an event or replays", () =>
      Effect.gen(function* () {
        expect(yield* appendThenReplay((action) => notificationsDuring(unused, action))).toEqual([0, 0])
      })
    )
  })

  /** Runs `use` with a new announcer of a new payload, closes it, and answers what `use` did and how many of its NOTIFYs were heard. */
  const withAnnouncer = <A, E, R>(
    options: { readonly minIntervalMs?: number },
    use: (announcer: Events.EventAnnouncerShape) => Effect.Effect<A, E, R>,
    quietMs?: number
  ) =>
    Effect.gen(function* () {
      const payload = `due:${randomUUID()}`
      return yield* notificationsDuring(
        payload,
        Effect.scoped(Effect.flatMap(PgNotifyAnnouncer.make({ payload, ...options }), use)),
        quietMs
      )
    })

  layer(Database, { timeout: 60_000, excludeTestServices: true })("PgNotifyAnnouncer", (it) => {
    it.effect("announces once per call when calls come one at a time", () =>
      Effect.gen(function* () {
        // Far enough apart that each NOTIFY is done before the next call: nothing to coalesce.
        const heard = yield* withAnnouncer({}, (announcer) =>
          Effect.forEach([1, 2, 3], () => Effect.zipRight(announcer.announce, Effect.sleep("150 millis")))
        )
        expect(heard).toBe(3)
      })
    )

    it.effect("sends at most one NOTIFY per interval however often commits announce", () =>
      Effect.gen(function* () {
        // An announcement every 5 ms or so: some 100 commits' worth, for however long that takes here.
        const [took, heard] = yield* Effect.timed(
          withAnnouncer(
            { minIntervalMs: 100 },
            (announcer) =>
              Effect.forEach(
                Array.from({ length: 100 }),
                () => Effect.zipRight(announcer.announce, Effect.sleep("5 millis")),
                { discard: true }
              ),
            0
          )
        )
        expect(heard).toBeGreaterThanOrEqual(2)
        // At most one per 100 ms of the time it took (the timing covers more than the announcing),
        // plus the one at the start and the one for announcements during the last pause.
        expect(heard).toBeLessThanOrEqual(Math.ceil(Duration.toMillis(took) / 100) + 2)
        expect(heard).toBeLessThan(50)
      })
    )

    it.effect("sends an announcement still waiting when it shuts down", () =>
      Effect.gen(function* () {
        const heard = yield* withAnnouncer({ minIntervalMs: 10_000 }, (announcer) =>
          Effect.gen(function* () {
            yield* announcer.announce
            // The first NOTIFY is sent; the announcer now pauses, and a commit announces again.
            yield* Effect.sleep("100 millis")
            yield* announcer.announce
          })
        )
        expect(heard).toBe(2)
      })
    )

    it.effect("coalesces a burst of announcements into one or two NOTIFYs", () =>
      Effect.gen(function* () {
        const heard = yield* withAnnouncer({}, (announcer) =>
          Effect.forEach(Array.from({ length: 1_000 }), () => announcer.announce, { discard: true })
        )
        expect(heard).toBeGreaterThanOrEqual(1)
        expect(heard).toBeLessThanOrEqual(2)
      })
    )
  })
}

/**
 * A TCP proxy to the database that can freeze: it stops passing bytes either way and keeps both
 * sockets open, as a connection does whose peer vanished without closing it (half-open).
 */
const freezableProxy = (target: URL) =>
  Effect.acquireRelease(
    Effect.async<{ readonly port: number; readonly freeze: () => void; readonly close: () => void }>((resume) => {
      const sockets: Array<Socket> = []
      let frozen = false
      // allowHalfOpen: a client's FIN gets no FIN back, as from a peer that is gone.
      const server = createServer({ allowHalfOpen: true }, (inbound) => {
        const outbound = connect(Number(target.port || 5432), target.hostname)
        sockets.push(inbound, outbound)
        inbound.on("data", (d) => {
          if (!frozen) outbound.write(d)
        })
        outbound.on("data", (d) => {
          if (!frozen) inbound.write(d)
        })
        inbound.on("error", () => {})
        outbound.on("error", () => {})
      })
      server.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({
            port: (server.address() as AddressInfo).port,
            freeze: () => {
              frozen = true
            },
            close: () => {
              for (const s of sockets) s.destroy()
              server.close()
            }
          })
        )
      )
    }),
    (proxy) => Effect.sync(proxy.close)
  )

if (url !== undefined && url.length > 0) {
  layer(TestDatabase.layerPostgres(url, { maxConnections: 2 }), { timeout: 60_000, excludeTestServices: true })(
    "PgChannelListener.listen",
    (it) => {
      const ownListener = (listenUrl: string, applicationName: string) =>
        Effect.gen(function* () {
          const heard = yield* Ref.make<ReadonlyArray<string>>([])
          const channel = yield* schemaChannel
          const fiber = yield* Effect.fork(
            Stream.runForEach(
              PgChannelListener.listen({ url: Redacted.make(listenUrl), applicationName }, channel),
              (p) => Ref.update(heard, (h) => [...h, p])
            )
          )
          return { heard, fiber }
        })

      it.effect("hears the channel, and fails as soon as its connection is terminated", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const applicationName = `frank_own_${randomUUID().replaceAll("-", "").slice(0, 16)}`
          const { heard, fiber } = yield* ownListener(url, applicationName)
          yield* notifyUntil(
            `due:${randomUUID()}`,
            Effect.map(Ref.get(heard), (h) => h.length > 0)
          )
          yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${applicationName}`
          const exit = yield* Fiber.await(fiber).pipe(Effect.timeout("10 seconds"))
          expect(exit._tag).toBe("Failure")
        })
      )

      it.effect("lets go of a half-open connection at once when the stream is closed", () =>
        Effect.scoped(
          Effect.gen(function* () {
            const target = new URL(url)
            const proxy = yield* freezableProxy(target)
            const viaProxy = new URL(url)
            viaProxy.hostname = "127.0.0.1"
            viaProxy.port = String(proxy.port)
            const { heard, fiber } = yield* ownListener(
              viaProxy.toString(),
              `frank_half_${randomUUID().replaceAll("-", "").slice(0, 16)}`
            )
            yield* notifyUntil(
              `due:${randomUUID()}`,
              Effect.map(Ref.get(heard), (h) => h.length > 0)
            )
            proxy.freeze()
            // sql-pg's listener would wait here forever (UNLISTEN, then a graceful close, on a
            // connection that never answers); this one destroys its socket.
            const closed = yield* Fiber.interrupt(fiber).pipe(Effect.timeout("5 seconds"), Effect.option)
            expect(closed._tag).toBe("Some")
          })
        )
      )
    }
  )
}
