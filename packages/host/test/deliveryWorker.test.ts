/**
 * How the host wakes its delivery worker on Postgres: after each commit its outbox wakes the worker
 * in-process and announces with a NOTIFY carrying the instance's payload, which its own listener
 * skips; other instances' NOTIFYs wake it. NOTIFY channels are per database, and other test files notify on the
 * same channel meanwhile, so every check here looks only at payloads this file made up.
 */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { pgNotifyAnnouncerLayer, postgresTestDatabase, sqlWebhookStoreLayer, WEBHOOK_NOTIFY_CHANNEL } from "@frank/adapters"
import { DeliveryWakeup, DeliveryWorker, Ids, Outbox, Secrets, WebhookSettings, Webhooks } from "@frank/core"
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Redacted, Ref, Stream } from "effect"
import { deliveryWorkerLayer } from "../src/workers/deliveryWorker.js"
import { makeNotifyOrigin } from "../src/workers/notifyOrigin.js"

describe("notify origin", () => {
  it("knows its own payload only, and differs per instance", () => {
    const a = makeNotifyOrigin()
    const b = makeNotifyOrigin()
    expect(a.payload).not.toBe(b.payload)
    expect(a.isOwn(a.payload)).toBe(true)
    expect(a.isOwn(b.payload)).toBe(false)
    // The default payload of stores not configured with an origin (an embedder's instance).
    expect(a.isOwn("due")).toBe(false)
    expect(a.payload.length).toBeGreaterThan(0)
  })
})

const url = process.env.DATABASE_URL

if (url !== undefined && url.length > 0) {
  const origin = makeNotifyOrigin()
  const Database = postgresTestDatabase(url, { maxConnections: 4 })
  const Engine = Webhooks.layer.pipe(
    Layer.provideMerge(Outbox.live),
    // As engine.ts wires it on Postgres: the store sends nothing, the outbox announces after commit.
    Layer.provideMerge(Layer.mergeAll(sqlWebhookStoreLayer({ notify: "none" }), pgNotifyAnnouncerLayer({ payload: origin.payload }))),
    Layer.provideMerge(Layer.mergeAll(Ids.Live, Secrets.layer(Redacted.make("pepper")), WebhookSettings.layer({ allowPrivateNetwork: true }))),
    Layer.provideMerge(Database)
  )

  /** Starts listening, runs `action`, and answers the payloads seen that satisfy `mine`, waiting for `count` of them. */
  const notificationsDuring = <A, E, R>(mine: (payload: string) => boolean, count: number, action: Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const pg = yield* PgClient.PgClient
      const listening = yield* Effect.fork(Stream.runCollect(pg.listen(WEBHOOK_NOTIFY_CHANNEL).pipe(Stream.filter(mine), Stream.take(count))))
      // LISTEN is issued when the stream starts; give it a moment before notifying.
      yield* Effect.sleep("200 millis")
      yield* action
      const seen = yield* Fiber.join(listening).pipe(Effect.timeout("10 seconds"))
      return Chunk.toReadonlyArray(seen)
    })

  layer(Engine, { timeout: 60_000, excludeTestServices: true })("host webhook NOTIFY on PostgreSQL", (it) => {
    it.effect("a new event and a replay are announced after commit with this instance's payload", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks
        const sql = yield* SqlClient.SqlClient
        const partnerId = `p_${randomUUID()}`
        const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/notify" })
        const onTest = yield* notificationsDuring((p) => p === origin.payload, 1, webhooks.sendTest(partnerId, endpoint.id))
        expect(onTest).toEqual([origin.payload])
        const [delivery] = yield* sql<{ id: string }>`SELECT id FROM webhook_deliveries WHERE partner_id = ${partnerId}`
        yield* sql`UPDATE webhook_deliveries SET status = 'dead_lettered', attempts = 6, next_attempt_at = NULL WHERE partner_id = ${partnerId}`
        const onReplay = yield* notificationsDuring((p) => p === origin.payload, 1, webhooks.replay(partnerId, delivery!.id))
        expect(onReplay).toEqual([origin.payload])
      })
    )

    /** The host's worker layer with a worker that never claims and a wake-up that counts its signals. */
    const wakeupsWith = (isOwnNotification: (payload: string) => boolean, notify: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const signals = yield* Ref.make(0)
        const counting = Layer.succeed(DeliveryWakeup, { signal: Ref.update(signals, (n) => n + 1), await: Effect.never })
        const idle = Layer.succeed(DeliveryWorker, { run: Effect.never, runDue: Effect.succeed(0), nextWakeAt: Effect.succeed(undefined) })
        const sql = yield* SqlClient.SqlClient
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Layer.build(deliveryWorkerLayer({ listen: true, isOwnNotification }).pipe(Layer.provide(Layer.mergeAll(counting, idle))))
            // Our listener and this one both hear every notification; once this one has them all, so has ours.
            const sent = new Set(notify)
            yield* notificationsDuring((p) => sent.has(p), notify.length, Effect.forEach(notify, (p) => sql`SELECT pg_notify(${WEBHOOK_NOTIFY_CHANNEL}, ${p})`))
            yield* Effect.sleep("100 millis")
          })
        )
        return yield* Ref.get(signals)
      })

    it.effect("the worker's listener skips this instance's own notifications and wakes on another instance's", () =>
      Effect.gen(function* () {
        // Every payload counts as our own: nothing wakes the worker, however many arrive.
        const own = [`due:${randomUUID()}`, `due:${randomUUID()}`, `due:${randomUUID()}`]
        expect(yield* wakeupsWith(() => true, own)).toBe(0)
        // Another instance's payload wakes it (other files' notifications may add more signals).
        const foreign = `due:${randomUUID()}`
        expect(yield* wakeupsWith((p) => p !== foreign, [foreign])).toBeGreaterThanOrEqual(1)
      })
    )
  })
}
