/**
 * Per-endpoint delivery rate with real HTTP receivers and two worker instances, each with its own
 * pool on one PostgreSQL database, as two host processes would run: an endpoint limited to 5/s
 * gets at most 5 (+1 for request timing) in every sliding second from both together, while an
 * unlimited endpoint beside it drains as fast as one alone did before any endpoint was limited.
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { HttpWebhookTransport, NodeWebhookSigner, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Access, Events, Ids, Webhooks } from "@frank/core"
import { testPartner } from "@frank/core/testing"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, Ref } from "effect"
import { busiestSecond } from "./contract/deliveryRateContract.js"

/** A local receiver answering 200 at once; answers the arrival times (wall clock, ms) of its requests. */
const receiver = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly times: () => ReadonlyArray<number>; readonly close: () => void }>(
    (resume) => {
      const times: Array<number> = []
      const server = createServer((req, res) => {
        times.push(Date.now())
        req.resume()
        req.on("end", () => res.end())
      })
      server.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
            times: () => [...times],
            close: () => server.close()
          })
        )
      )
    }
  ),
  (r) => Effect.sync(r.close)
)

/** The HTTP transport, counting the requests this instance sent to `url`. */
const countingTransport = (url: string, sent: Ref.Ref<number>) =>
  Layer.effect(
    Webhooks.WebhookTransport,
    Effect.map(Webhooks.WebhookTransport, (t) => ({
      send: (r: Webhooks.AttemptRequest) =>
        Effect.zipRight(
          Ref.update(sent, (n) => n + (r.url === url ? 1 : 0)),
          t.send(r)
        ),
      sendBatch: (
        rs: ReadonlyArray<Webhooks.AttemptRequest>,
        onOutcome: (i: number, o: Webhooks.AttemptOutcome) => void,
        release: Effect.Effect<boolean>
      ) =>
        Effect.zipRight(
          Ref.update(sent, (n) => n + rs.filter((r) => r.url === url).length),
          t.sendBatch(rs, onOutcome, release)
        )
    }))
  ).pipe(Layer.provide(HttpWebhookTransport.layerWith({ allowPrivateNetwork: true })))

const workerConfig = { ...Webhooks.defaultWorkerConfig, pollIntervalMs: 100 }

/** A worker instance of its own: its own pool on the test's schema, wake-up, transport and worker. */
const instance = (connection: string, limitedUrl: string, sent: Ref.Ref<number>) =>
  Webhooks.DeliveryWorker.layer(workerConfig).pipe(
    Layer.provide(
      Layer.mergeAll(
        Events.DeliveryWakeup.layer,
        SqlWebhookStore.layerWith({ notify: "none" }),
        countingTransport(limitedUrl, sent),
        NodeWebhookSigner.layer,
        Ids.Ids.layer
      )
    ),
    Layer.provide(PgClient.layer({ url: Redacted.make(connection), maxConnections: 3 })),
    Layer.fresh
  )

const run = (worker: Layer.Layer<Webhooks.DeliveryWorker, unknown, Events.Outbox>) =>
  Effect.forkScoped(
    Effect.provide(
      Effect.flatMap(Webhooks.DeliveryWorker, (w) => w.run),
      worker
    )
  )

/** Waits until `done` holds, polling every 20 ms; fails after `ms`. */
const until = (what: string, ms: number, done: () => boolean) =>
  Effect.gen(function* () {
    const end = Date.now() + ms
    while (!done()) {
      if (Date.now() > end) return yield* Effect.dieMessage(`${what}: not within ${ms} ms`)
      yield* Effect.sleep("20 millis")
    }
  })

const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) {
  const Engine = Webhooks.Webhooks.layer.pipe(
    Layer.provideMerge(Events.Outbox.layer),
    Layer.provideMerge(Layer.mergeAll(SqlWebhookStore.layerWith({ notify: "none" }), Events.DeliveryWakeup.layer)),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Ids.layer,
        Access.Secrets.layer(Redacted.make("pepper")),
        Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true })
      )
    ),
    Layer.provideMerge(TestDatabase.layerPostgres(url, { maxConnections: 4 }))
  )

  layer(Engine, { timeout: 180_000, excludeTestServices: true })(
    "delivery rate across two hosts on PostgreSQL",
    (it) => {
      it.effect("5/s holds in every second across both workers; the unlimited endpoint drains as before", () =>
        Effect.scoped(
          Effect.gen(function* () {
            const webhooks = yield* Webhooks.Webhooks
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
            const connection = TestDatabase.withSearchPath(url, row?.schema ?? "public")
            const EACH = 200
            const partnerId = testPartner(`p_${randomUUID()}`)
            const baseline = yield* receiver
            const limited = yield* receiver
            const unlimited = yield* receiver
            const sentA = yield* Ref.make(0)
            const sentB = yield* Ref.make(0)
            yield* run(instance(connection, limited.url, sentA))
            yield* run(instance(connection, limited.url, sentB))

            // Before: an unlimited endpoint alone, no endpoint limited anywhere (the claim's 0021 path).
            const alone = yield* webhooks.createEndpoint(partnerId, { url: baseline.url })
            for (let i = 0; i < EACH; i++) yield* webhooks.sendTest(partnerId, alone.id)
            const baselineStart = Date.now()
            yield* until("the baseline drain", 30_000, () => baseline.times().length === EACH)
            const baselineMs = Date.now() - baselineStart

            // Events are queued first and the workers woken only by their poll, so both backlogs are
            // there in full when the claims start.
            const slow = yield* webhooks.createEndpoint(partnerId, { url: limited.url, rateLimitPerSecond: 5 })
            const fast = yield* webhooks.createEndpoint(partnerId, { url: unlimited.url })
            for (let i = 0; i < EACH; i++) {
              yield* webhooks.sendTest(partnerId, slow.id)
              yield* webhooks.sendTest(partnerId, fast.id)
            }
            const start = Date.now()
            yield* until("the unlimited drain", 30_000, () => unlimited.times().length === EACH)
            const fastMs = Date.now() - start
            yield* until("the limited drain", 90_000, () => limited.times().length === EACH)
            const slowMs = Date.now() - start

            const times = limited.times()
            console.log(
              `delivery rate: baseline ${EACH} in ${baselineMs} ms; beside a 5/s endpoint ${EACH} in ${fastMs} ms; ` +
                `the 5/s endpoint ${EACH} in ${slowMs} ms, busiest second ${busiestSecond(times)}; ` +
                `sent by A ${yield* Ref.get(sentA)}, by B ${yield* Ref.get(sentB)}`
            )
            expect(busiestSecond(times)).toBeLessThanOrEqual(6)
            // Not much slower than the rate allows: 200 at 5/s take 39 s and a little.
            expect(slowMs).toBeLessThan(45_000)
            // The unlimited endpoint is not held back by the limited one's backlog.
            expect(fastMs).toBeLessThan(Math.max(4 * baselineMs, 2_000))
            expect(unlimited.times().length).toBe(EACH)
            // Both instances took turns at the limited endpoint: the window is shared, not per host.
            expect(yield* Ref.get(sentA)).toBeGreaterThan(0)
            expect(yield* Ref.get(sentB)).toBeGreaterThan(0)
            expect((yield* Ref.get(sentA)) + (yield* Ref.get(sentB))).toBe(EACH)
            const [attempts] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_attempts a
            JOIN webhook_deliveries d ON d.partner_id = a.partner_id AND d.id = a.delivery_id
            WHERE d.partner_id = ${partnerId} AND d.endpoint_id = ${slow.id}::uuid`
            expect(attempts?.n).toBe(EACH)
          })
        )
      )
    }
  )
}
