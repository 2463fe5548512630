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
import pg from "pg"
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

      it.effect(
        "the claim's plans: unchanged while no endpoint is limited; with one, index lookups only (migration 0029)",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
            const connection = TestDatabase.withSearchPath(url, row?.schema ?? "public")
            const tag = randomUUID().slice(0, 8)
            const partner = `p_plan_${tag}`
            yield* Effect.addFinalizer(() =>
              Effect.ignore(
                Effect.all([
                  sql`DELETE FROM webhook_deliveries WHERE partner_id = ${partner}`,
                  sql`DELETE FROM webhook_events WHERE partner_id = ${partner}`,
                  sql`DELETE FROM webhook_endpoint_rates WHERE partner_id = ${partner}`,
                  sql`DELETE FROM webhook_endpoints WHERE partner_id = ${partner}`
                ])
              )
            )
            // Other tests' limits gone (the first plan is the unlimited one); four endpoints, 400 due deliveries.
            yield* sql`DELETE FROM webhook_endpoint_rates`
            yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
            SELECT ${partner}, md5(${tag} || 'ep' || k)::uuid, 'https://receiver.example/plan', NULL, true, 'whsec_plan', 0, 0
            FROM generate_series(1, 4) k`
            yield* sql`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload)
            SELECT ${partner}, md5(${tag} || 'ev' || g)::uuid, 'webhook.test', g, '{}' FROM generate_series(1, 400) g`
            yield* sql`INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
            SELECT ${partner}, md5(${tag} || 'd' || g)::uuid, md5(${tag} || 'ep' || (g % 4 + 1))::uuid, md5(${tag} || 'ev' || g)::uuid,
              'webhook.test', 'pending', 0, g, g, g
            FROM generate_series(1, 400) g`
            yield* sql`ANALYZE webhook_deliveries, webhook_events, webhook_endpoints, webhook_endpoint_rates`
            /** The claim's statements as auto_explain reports them, and how many rows it took (rolled back). */
            const explainClaim = Effect.acquireUseRelease(
              Effect.promise(async () => {
                const client = new pg.Client({ connectionString: connection })
                await client.connect()
                return client
              }),
              (client) =>
                Effect.promise(async () => {
                  const notices: Array<string> = []
                  client.on("notice", (n) => notices.push(n.message ?? ""))
                  await client.query("LOAD 'auto_explain'")
                  await client.query(
                    "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice"
                  )
                  await client.query("BEGIN")
                  const claimed = await client.query("SELECT * FROM webhook_claim_due($1, $2, $3, $4)", [
                    1_000,
                    60_000,
                    40,
                    "plan"
                  ])
                  await client.query("ROLLBACK")
                  return { plan: notices.join("\n"), taken: claimed.rowCount }
                }),
              (client) => Effect.promise(() => client.end())
            )
            const unlimited = yield* explainClaim
            expect(unlimited.taken).toBe(40)
            // No rate row: the due index (in each day's partition, migration 0032) then updates by the
            // whole key, time partition included; nothing of the rate.
            expect(unlimited.plan).toMatch(
              /Index Scan using webhook_deliveries_\w*next_attempt_at\w* on webhook_deliveries_\w+/
            )
            expect(unlimited.plan).toMatch(
              /Index Scan using webhook_deliveries_\w+ on webhook_deliveries_\w+ \w+[^\n]*\n\s*Index Cond: \(\(partner_id = due\.partner_id\) AND (?=[^\n]*\(created_at = due\.created_at\))(?=[^\n]*\(id = due\.id\))/
            )
            expect(unlimited.plan).not.toMatch(/webhook_take_rate|unnest|Seq Scan|Hash Join|Merge Join/)

            yield* sql`INSERT INTO webhook_endpoint_rates (partner_id, endpoint_id, per_second)
            VALUES (${partner}, md5(${tag} || 'ep' || 1)::uuid, 5)`
            const limited = yield* explainClaim
            // A quarter of the candidates are the limited endpoint's: one slot of them, the rest deferred
            // and the batch filled up in further rounds.
            expect(limited.taken).toBe(40)
            expect(limited.plan).toMatch(
              /Index Scan using webhook_deliveries_\w*next_attempt_at\w* on webhook_deliveries_\w+/
            )
            expect(limited.plan).toMatch(/Index Scan using webhook_endpoint_rates_pkey on webhook_endpoint_rates/)
            expect(limited.plan).toMatch(
              /Index Scan using webhook_deliveries_\w+ on webhook_deliveries_\w+ \w+[^\n]*\n\s*Index Cond: \(\(partner_id = /
            )
            expect(limited.plan).not.toMatch(/Seq Scan on webhook_(deliveries|events|endpoints)|Hash Join|Merge Join/)
            const [deferred] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries
            WHERE partner_id = ${partner} AND next_attempt_at > 1000`
            // Rolled back: nothing was deferred for good.
            expect(deferred?.n).toBe(0)
          }).pipe(Effect.scoped)
      )
    }
  )
}
