/**
 * How the SQL side tells other processes about due deliveries: the store's NOTIFY inside the
 * writing transaction (default), or nothing from the store and a coalesced NOTIFY after commit from
 * PgNotifyAnnouncer. NOTIFY channels are per database and other test files notify on the same
 * channel meanwhile, so every check looks only at payloads this file made up.
 */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Ids, Outbox, Secrets, WebhookSettings, Webhooks } from "@frank/core"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Redacted, Ref, Stream } from "effect"
import { checkNotifyPayload, makePgNotifyAnnouncer, MAX_NOTIFY_PAYLOAD_BYTES, postgresTestDatabase, sqlWebhookStoreLayer, WEBHOOK_NOTIFY_CHANNEL } from "../src/index.js"

describe("NOTIFY payload check", () => {
  layer(Layer.empty)((it) => {
    it.effect("accepts 1 to 7,999 bytes and dies otherwise", () =>
      Effect.gen(function* () {
        expect(yield* checkNotifyPayload("due")).toBe("due")
        expect(yield* checkNotifyPayload("x".repeat(MAX_NOTIFY_PAYLOAD_BYTES - 1))).toHaveLength(MAX_NOTIFY_PAYLOAD_BYTES - 1)
        for (const bad of ["", "x".repeat(MAX_NOTIFY_PAYLOAD_BYTES), "é".repeat(MAX_NOTIFY_PAYLOAD_BYTES / 2)]) {
          const exit = yield* Effect.exit(checkNotifyPayload(bad))
          expect(exit._tag, `${bad.length} characters`).toBe("Failure")
        }
      })
    )
  })
})

/**
 * Listens on the channel (and makes sure it does: a probe of its own must come back first, as
 * LISTEN is issued only when the stream starts), runs `action`, waits `quietMs` more for
 * stragglers, and answers how many notifications carrying `payload` arrived.
 */
const notificationsDuring = <A, E, R>(payload: string, action: Effect.Effect<A, E, R>, quietMs = 300) =>
  Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const sql = yield* SqlClient.SqlClient
    const probe = `probe:${randomUUID()}`
    const ready = yield* Ref.make(false)
    const heard = yield* Ref.make(0)
    const listening = yield* Effect.fork(
      Stream.runForEach(pg.listen(WEBHOOK_NOTIFY_CHANNEL), (p) => (p === probe ? Ref.set(ready, true) : p === payload ? Ref.update(heard, (n) => n + 1) : Effect.void))
    )
    for (let i = 0; !(yield* Ref.get(ready)); i++) {
      if (i === 500) return yield* Effect.dieMessage("the listener heard nothing within 10 s")
      yield* sql`SELECT pg_notify(${WEBHOOK_NOTIFY_CHANNEL}, ${probe})`
      yield* Effect.sleep("20 millis")
    }
    yield* action
    yield* Effect.sleep(`${quietMs} millis`)
    yield* Fiber.interrupt(listening)
    return yield* Ref.get(heard)
  })

const url = process.env.DATABASE_URL

if (url !== undefined && url.length > 0) {
  const Database = postgresTestDatabase(url, { maxConnections: 4 })
  const engineWith = (store: ReturnType<typeof sqlWebhookStoreLayer>) =>
    Webhooks.layer.pipe(
      Layer.provideMerge(Outbox.live),
      Layer.provideMerge(store),
      Layer.provideMerge(Layer.mergeAll(Ids.Live, Secrets.layer(Redacted.make("pepper")), WebhookSettings.layer({ allowPrivateNetwork: true }))),
      Layer.provideMerge(Database)
    )

  /** A new event to a new endpoint, then a replay of its delivery: the two writes that make deliveries due. */
  const appendThenReplay = (notify: (action: Effect.Effect<unknown, unknown, Webhooks>) => Effect.Effect<number, unknown, Webhooks | PgClient.PgClient | SqlClient.SqlClient>) =>
    Effect.gen(function* () {
      const webhooks = yield* Webhooks
      const sql = yield* SqlClient.SqlClient
      const partnerId = `p_${randomUUID()}`
      const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/notify" })
      const onAppend = yield* notify(webhooks.sendTest(partnerId, endpoint.id))
      const [delivery] = yield* sql<{ id: string }>`SELECT id FROM webhook_deliveries WHERE partner_id = ${partnerId}`
      yield* sql`UPDATE webhook_deliveries SET status = 'dead_lettered', attempts = 6, next_attempt_at = NULL WHERE partner_id = ${partnerId}`
      const onReplay = yield* notify(webhooks.replay(partnerId, delivery!.id))
      return [onAppend, onReplay]
    })

  const inTransaction = `due:${randomUUID()}`
  layer(engineWith(sqlWebhookStoreLayer({ notifyPayload: inTransaction })), { timeout: 60_000, excludeTestServices: true })(
    "SQL webhook store, NOTIFY in the transaction (default)",
    (it) => {
      it.effect("an appended event and a replay each send one NOTIFY with the configured payload", () =>
        Effect.gen(function* () {
          expect(yield* appendThenReplay((action) => notificationsDuring(inTransaction, action))).toEqual([1, 1])
        })
      )
    }
  )

  const unused = `due:${randomUUID()}`
  layer(engineWith(sqlWebhookStoreLayer({ notify: "none", notifyPayload: unused })), { timeout: 60_000, excludeTestServices: true })(
    "SQL webhook store, notify none",
    (it) => {
      it.effect("sends nothing when it appends an event or replays", () =>
        Effect.gen(function* () {
          expect(yield* appendThenReplay((action) => notificationsDuring(unused, action))).toEqual([0, 0])
        })
      )
    }
  )

  layer(Database, { timeout: 60_000, excludeTestServices: true })("PgNotifyAnnouncer", (it) => {
    it.effect("announces once per call when calls come one at a time", () =>
      Effect.gen(function* () {
        const payload = `due:${randomUUID()}`
        const heard = yield* Effect.scoped(
          Effect.gen(function* () {
            const announcer = yield* makePgNotifyAnnouncer({ payload })
            // Far enough apart that each NOTIFY is done before the next call: nothing to coalesce.
            return yield* notificationsDuring(payload, Effect.forEach([1, 2, 3], () => Effect.zipRight(announcer.announce, Effect.sleep("150 millis"))))
          })
        )
        expect(heard).toBe(3)
      })
    )

    it.effect("sends at most one NOTIFY per interval however often commits announce", () =>
      Effect.gen(function* () {
        const payload = `due:${randomUUID()}`
        const heard = yield* Effect.scoped(
          Effect.gen(function* () {
            const announcer = yield* makePgNotifyAnnouncer({ payload, minIntervalMs: 100 })
            // An announcement every 5 ms or so: some 100 commits' worth, for however long that takes here.
            const steady = Effect.forEach(Array.from({ length: 100 }), () => Effect.zipRight(announcer.announce, Effect.sleep("5 millis")), { discard: true })
            const [took, count] = yield* Effect.timed(notificationsDuring(payload, steady, 0))
            return { count, tookMs: Duration.toMillis(took) }
          })
        )
        expect(heard.count).toBeGreaterThanOrEqual(2)
        // At most one per 100 ms of the time it took (the timing covers more than the announcing),
        // plus the one at the start and the one for announcements during the last pause.
        expect(heard.count).toBeLessThanOrEqual(Math.ceil(heard.tookMs / 100) + 2)
        expect(heard.count).toBeLessThan(50)
      })
    )

    it.effect("sends an announcement still waiting when it shuts down", () =>
      Effect.gen(function* () {
        const payload = `due:${randomUUID()}`
        const closesDuringPause = Effect.scoped(
          Effect.gen(function* () {
            const announcer = yield* makePgNotifyAnnouncer({ payload, minIntervalMs: 10_000 })
            yield* announcer.announce
            // The first NOTIFY is sent; the announcer now pauses, and a commit announces again.
            yield* Effect.sleep("100 millis")
            yield* announcer.announce
          })
        )
        expect(yield* notificationsDuring(payload, closesDuringPause)).toBe(2)
      })
    )

    it.effect("coalesces a burst of announcements into one or two NOTIFYs", () =>
      Effect.gen(function* () {
        const payload = `due:${randomUUID()}`
        const heard = yield* Effect.scoped(
          Effect.gen(function* () {
            const announcer = yield* makePgNotifyAnnouncer({ payload })
            return yield* notificationsDuring(payload, Effect.forEach(Array.from({ length: 1_000 }), () => announcer.announce, { discard: true }))
          })
        )
        expect(heard).toBeGreaterThanOrEqual(1)
        expect(heard).toBeLessThanOrEqual(2)
      })
    )
  })
}
