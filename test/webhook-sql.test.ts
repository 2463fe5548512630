/**
 * Webhook behaviour only SQL stores have: the outbox commits and rolls back with the business
 * transaction, and several workers (host instances) share one database without ever sending
 * the same attempt twice. Live clock and real concurrency.
 */
import { SqlClient } from "@effect/sql"
import { SqlLedgerStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Access, Events, Ids, Ledger, Webhooks } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Clock, Context, Deferred, Effect, Either, Fiber, Layer, Option, Redacted, Ref } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import { testPartner } from "@frank/core/testing"
import { DeliveryQueue, EventStore } from "@frank/core/stores"

const engines: Array<[string, () => Layer.Layer<TestDatabase.TestDatabase, unknown>]> = [
  ["PGlite", () => TestDatabase.layerPglite()]
]
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  engines.push(["PostgreSQL", () => TestDatabase.layerPostgres(url, { maxConnections: 10 })])

/** A receiver that records every request's event id and answers 200 after a short random pause. */
class Recorded extends Context.Tag("test/Recorded")<Recorded, Ref.Ref<ReadonlyArray<string>>>() {}
const RecordingTransport = Layer.effectContext(
  Effect.gen(function* () {
    const log = yield* Ref.make<ReadonlyArray<string>>([])
    const send = (r: Webhooks.AttemptRequest) =>
      Effect.gen(function* () {
        yield* Ref.update(log, (l) => [...l, r.headers["X-Service-Event-Id"] ?? "?"])
        yield* Effect.sleep(Math.floor(Math.random() * 5))
        return { _tag: "Answered", status: 200 } as const
      })
    return Context.make(Recorded, log).pipe(
      Context.add(Webhooks.WebhookTransport, { send, sendBatch: Webhooks.sendEach(send) })
    )
  })
)

/** An announcer that counts its announcements (what another process would hear). */
class Announced extends Context.Tag("test/Announced")<Announced, Ref.Ref<number>>() {}
const CountingAnnouncer = Layer.effectContext(
  Effect.map(Ref.make(0), (count) =>
    Context.make(Announced, count).pipe(
      Context.add(Events.EventAnnouncer, { announce: Ref.update(count, (n) => n + 1) })
    )
  )
)

/** Whether the worker's wake-up holds a signal now (taken, so the next check starts empty). */
const signalled = Effect.flatMap(Events.DeliveryWakeup, (w) =>
  Effect.map(Effect.timeoutOption(w.await, "10 millis"), Option.isSome)
)

/**
 * Polls until some connection of this test waits (`waiting`), or none does, on a lock in a
 * statement on webhook_endpoints or in the fan-out (its function, migration 0034); dies with
 * `failure` after 5 s. Other test files share the database, each in its own schema: a waiter
 * counts only if it holds a lock on a relation of this test's schema (any statement on a table
 * keeps one until its transaction ends).
 */
const untilEndpointLockWaits = (waiting: boolean, failure: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (let i = 0; i < 500; i++) {
      const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity a
        WHERE a.datname = current_database() AND a.wait_event_type = 'Lock'
          AND (a.query ILIKE '%webhook_endpoints%' OR a.query ILIKE '%webhook_append_event%')
          AND EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
            WHERE l.pid = a.pid AND c.relnamespace = current_schema()::regnamespace)`
      if ((row?.n ?? 0) > 0 === waiting) return
      yield* Effect.sleep(10)
    }
    return yield* Effect.dieMessage(failure)
  })
const untilEndpointLockWait = (failure: string) => untilEndpointLockWaits(true, failure)

/**
 * A business transaction of `partnerId` that emitted one event (fanned out to its endpoints, so
 * holding them `FOR KEY SHARE`) and stays open until `release`.
 */
const openTransaction = (partnerId: Ids.PartnerId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Events.Outbox
    const emitted = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(
      sql.withTransaction(
        Effect.zipRight(
          // The outbox alone: a ledger movement would also lock the partner's account, and a
          // second such transaction would wait on that instead.
          outbox.emit(partnerId, {
            type: "billing.topup.confirmed",
            data: { transactionId: randomUUID(), paymentId: "pay", amountFranks: 1 }
          }),
          Effect.zipRight(Deferred.succeed(emitted, undefined), Deferred.await(release))
        )
      )
    )
    yield* Deferred.await(emitted).pipe(
      Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "a business transaction could not emit" })
    )
    return { fiber, release: Deferred.succeed(release, undefined) }
  })

/**
 * Runs `first` inside a transaction held open until `second` (forked meanwhile) has either
 * finished or is waiting on a row lock of webhook_endpoints, then commits it and waits for
 * `second`. That forces the interleaving a race needs: `second` runs while `first`'s writes are
 * uncommitted, whether or not it ends up waiting for them. Answers both results.
 */
const interleaved = <A, E1, R1, B, E2, R2>(first: Effect.Effect<A, E1, R1>, second: Effect.Effect<B, E2, R2>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const done = yield* Deferred.make<A>()
    const release = yield* Deferred.make<void>()
    const holder = yield* Effect.fork(
      sql.withTransaction(Effect.tap(first, (a) => Effect.zipRight(Deferred.succeed(done, a), Deferred.await(release))))
    )
    const a = yield* Deferred.await(done)
    const contender = yield* Effect.fork(second)
    yield* Effect.raceFirst(
      Fiber.await(contender),
      untilEndpointLockWait("the second operation neither finished nor waited on a lock within 5 s")
    )
    yield* Deferred.succeed(release, undefined)
    yield* Fiber.join(holder)
    const b = yield* Fiber.join(contender)
    return [a, b] as const
  })

for (const [engine, database] of engines) {
  const Engine = Layer.mergeAll(Ledger.Ledger.layer, Webhooks.Webhooks.layer).pipe(
    Layer.provideMerge(Events.Outbox.layerWithWakeup),
    Layer.provideMerge(Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer)),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Ids.layer,
        Access.Secrets.layer(Redacted.make("pepper")),
        Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true }),
        RecordingTransport,
        CountingAnnouncer
      )
    ),
    Layer.provideMerge(database())
  )

  layer(Engine, { timeout: 120_000, excludeTestServices: true })(`webhooks on SQL (${engine})`, (it) => {
    it.effect("the outbox rolls back with the enclosing transaction and commits with it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger.Ledger
        const webhooks = yield* Webhooks.Webhooks
        const partnerId = testPartner(`p_${randomUUID()}`)
        yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/hook" })
        const failed = yield* sql
          .withTransaction(
            Effect.zipRight(
              ledger.credit(partnerId, { kind: "topup", amountMinor: 100_000, reference: "pay-rolled-back" }),
              Effect.fail("business step failed" as const)
            )
          )
          .pipe(Effect.flip)
        expect(failed).toBe("business step failed")
        const count = (table: string) =>
          Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE partner_id = ${partnerId}`,
            (r) => r[0]?.n
          )
        expect(yield* count("ledger_entries")).toBe(0)
        expect(yield* count("webhook_events")).toBe(0)
        expect(yield* count("webhook_deliveries")).toBe(0)
        yield* sql.withTransaction(
          ledger.credit(partnerId, { kind: "topup", amountMinor: 100_000, reference: "pay-committed" })
        )
        expect(yield* count("ledger_entries")).toBe(1)
        expect(yield* count("webhook_events")).toBe(1)
        expect(yield* count("webhook_deliveries")).toBe(1)
      })
    )

    it.effect(
      "a movement inside a caller's transaction wakes no worker before the commit; the caller's wake after it does",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const ledger = yield* Ledger.Ledger
          const outbox = yield* Events.Outbox
          const announced = yield* Announced
          const partnerId = testPartner(`p_${randomUUID()}`)
          yield* (yield* Webhooks.Webhooks).createEndpoint(partnerId, { url: "https://receiver.example/hook" })
          yield* signalled
          const before = yield* Ref.get(announced)
          yield* sql.withTransaction(
            Effect.gen(function* () {
              // billing.topup.confirmed is written, not yet committed: no worker could find it.
              yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 100_000, reference: "pay-nested" })
              expect(yield* signalled).toBe(false)
              expect(yield* Ref.get(announced)).toBe(before)
            })
          )
          yield* outbox.wake
          expect(yield* signalled).toBe(true)
          expect(yield* Ref.get(announced)).toBe(before + 1)
          // Outside any caller's transaction the movement commits on its own and wakes by itself.
          yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 100_000, reference: "pay-alone" })
          expect(yield* signalled).toBe(true)
          expect(yield* Ref.get(announced)).toBe(before + 2)
        })
    )

    it.effect("two workers on one database deliver every attempt exactly once", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const recorded = yield* Recorded
        const sql = yield* SqlClient.SqlClient
        const partnerId = testPartner(`p_${randomUUID()}`)
        const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/two-workers" })
        const EVENTS = 200
        // Two independent workers (own claim tokens, own loops), as two host instances would run.
        const workerLayer = Layer.fresh(
          Webhooks.DeliveryWorker.layer({
            concurrency: 8,
            batchSize: 8,
            leaseMs: 60_000,
            pollIntervalMs: 20,
            drainMs: 5_000
          })
        )
        const context = yield* Effect.context<never>()
        const workers = yield* Effect.forEach([1, 2], () => Layer.build(workerLayer).pipe(Effect.provide(context)))
        const fibers = yield* Effect.forEach(workers, (ctx) =>
          Effect.fork(
            Effect.provide(
              Effect.flatMap(Webhooks.DeliveryWorker, (w) => w.run),
              ctx
            )
          )
        )
        const emitted = yield* Effect.forEach(
          Array.from({ length: EVENTS }),
          () => webhooks.sendTest(partnerId, endpoint.id),
          { concurrency: 4 }
        )
        const ids = new Set(emitted.map((e) => e.event.id))
        const deadline = (yield* Clock.currentTimeMillis) + 60_000
        for (;;) {
          const [row] = yield* sql<{
            n: number
          }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId} AND status = 'delivered'`
          if ((row?.n ?? 0) === EVENTS || (yield* Clock.currentTimeMillis) > deadline) break
          yield* Effect.sleep(50)
        }
        yield* Effect.forEach(fibers, Fiber.interrupt)
        const got = (yield* Ref.get(recorded)).filter((id) => ids.has(id))
        expect(got).toHaveLength(EVENTS)
        expect(new Set(got).size).toBe(EVENTS)
        const [attempts] = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM webhook_attempts WHERE partner_id = ${partnerId}`
        expect(attempts?.n).toBe(EVENTS)
      }).pipe(Effect.scoped)
    )

    it.effect("a paused endpoint's pending deliveries leave the claim's due index and return on reactivation", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const store = yield* DeliveryQueue
        const sql = yield* SqlClient.SqlClient
        const partnerId = testPartner(`p_${randomUUID()}`)
        const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/paused" })
        for (let i = 0; i < 3; i++) yield* webhooks.sendTest(partnerId, endpoint.id)
        const flagged = Effect.map(
          sql<{
            n: number
          }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId} AND status = 'pending' AND endpoint_paused`,
          (rows) => rows[0]?.n
        )
        const claimOurs = Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.map(store.claimDue(now + 1, 60_000, 1_000, `paused-${randomUUID()}`), (claims) =>
            claims.filter((c) => c.partnerId === partnerId)
          )
        )
        expect(yield* flagged).toBe(0)
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: false })
        // Out of the due index (migration 0011), so claims no longer step over them; none is claimed.
        expect(yield* flagged).toBe(3)
        expect(yield* claimOurs).toEqual([])
        // A patch that leaves the endpoint paused changes nothing; reactivation brings them back.
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { url: "https://receiver.example/paused-2" })
        expect(yield* flagged).toBe(3)
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: true })
        expect(yield* flagged).toBe(0)
        expect((yield* claimOurs).map((c) => c.url)).toEqual(
          Array.from({ length: 3 }, () => "https://receiver.example/paused-2")
        )
      })
    )

    it.effect("a retry recorded after its endpoint was paused is neither claimed nor counted in the due backlog", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const store = yield* DeliveryQueue
        const partnerId = testPartner(`p_${randomUUID()}`)
        const endpoint = yield* webhooks.createEndpoint(partnerId, {
          url: "https://receiver.example/paused-mid-attempt"
        })
        yield* webhooks.sendTest(partnerId, endpoint.id)
        const now = yield* Clock.currentTimeMillis
        const [claim] = (yield* store.claimDue(now + 1, 60_000, 1_000, `lag-${randomUUID()}`)).filter(
          (c) => c.partnerId === partnerId
        )
        if (claim === undefined) return yield* Effect.dieMessage("the test delivery was not claimed")
        const later = now + 10 * 60_000
        const backlogAt = (at: number) => store.dueBacklog(at)
        const before = yield* backlogAt(later)
        // Paused while the attempt is in flight: the pause flags pending rows only, so the retry
        // enters the due index unflagged; the claim's endpoint check and the backlog must agree.
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: false })
        const failed = Either.getOrThrow(
          Webhooks.finishedAttempt(claim, { _tag: "Answered", status: 503 }, now, now + 5)
        )
        expect(failed.next.status).toBe("pending")
        expect(yield* store.finishAttempts([failed], now + 5)).toEqual([claim.id])
        expect((yield* backlogAt(later)).count).toBe(before.count)
        expect(
          (yield* store.claimDue(later, 60_000, 1_000, `lag-${randomUUID()}`)).filter((c) => c.partnerId === partnerId)
        ).toEqual([])
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: true })
        expect((yield* backlogAt(later)).count).toBe(before.count + 1)
      })
    )

    it.effect("an event id written again writes nothing: no event, no delivery, no second id (migration 0033)", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const store = yield* EventStore
        const sql = yield* SqlClient.SqlClient
        const partnerId = testPartner(`p_${randomUUID()}`)
        yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/repeat" })
        const now = yield* Clock.currentTimeMillis
        const event = { partnerId, id: randomUUID(), type: "webhook.test" as const, occurredAt: now, payload: "{}" }
        expect(yield* store.appendEvent(event, { _tag: "Subscribers" }, now)).toBe(1)
        expect(
          yield* store.appendEvent({ ...event, payload: '{"again":true}' }, { _tag: "Subscribers" }, now + 1)
        ).toBe(0)
        const [rows] = yield* sql<{ events: number; deliveries: number; ids: number; payload: string }>`SELECT
          (SELECT count(*) FROM webhook_events WHERE partner_id = ${partnerId})::int AS events,
          (SELECT count(*) FROM webhook_deliveries WHERE partner_id = ${partnerId})::int AS deliveries,
          (SELECT count(*) FROM webhook_event_ids WHERE partner_id = ${partnerId})::int AS ids,
          (SELECT payload FROM webhook_events WHERE partner_id = ${partnerId}) AS payload`
        expect(rows).toEqual({ events: 1, deliveries: 1, ids: 1, payload: "{}" })
      })
    )

    // Several connections at once: only a server has them (PGlite serves one at a time).
    if (engine === "PostgreSQL") {
      it.effect(
        "two concurrent writers of one event id write one event: the second waits for the first, then writes nothing",
        () =>
          Effect.gen(function* () {
            const webhooks = yield* Webhooks.Webhooks
            const store = yield* EventStore
            const sql = yield* SqlClient.SqlClient
            const partnerId = testPartner(`p_${randomUUID()}`)
            yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/concurrent-id" })
            const now = yield* Clock.currentTimeMillis
            const event = { partnerId, id: randomUUID(), type: "webhook.test" as const, occurredAt: now, payload: "{}" }
            const append = store.appendEvent(event, { _tag: "Subscribers" }, now)
            // The second runs while the first's id is uncommitted, and waits on it.
            expect(yield* interleaved(append, append)).toEqual([1, 0])
            const [rows] = yield* sql<{ events: number; deliveries: number }>`SELECT
            (SELECT count(*) FROM webhook_events WHERE partner_id = ${partnerId})::int AS events,
            (SELECT count(*) FROM webhook_deliveries WHERE partner_id = ${partnerId})::int AS deliveries`
            expect(rows).toEqual({ events: 1, deliveries: 1 })
          })
      )

      it.effect(
        "the worker's claim and outcome write find deliveries and endpoints by primary key, however many endpoints share the table or a partner has deleted (migrations 0012, 0013)",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
            // Forty endpoints with 25 due deliveries each: the shape (deliveries correlated with their
            // endpoint and partner) that made the planner reach a claimed delivery through its
            // endpoint's whole history, and a table small enough that it hashed a full scan into the
            // outcome write. Due long ago, so the claim takes these first.
            const tag = randomUUID().slice(0, 8)
            const prefix = `p_plan_${tag}_`
            // Gone afterwards: these due rows would be claimed ahead of the other tests' deliveries.
            yield* Effect.addFinalizer(() =>
              Effect.ignore(
                Effect.all([
                  sql`DELETE FROM webhook_deliveries WHERE starts_with(partner_id, ${prefix})`,
                  sql`DELETE FROM webhook_events WHERE starts_with(partner_id, ${prefix})`,
                  sql`DELETE FROM webhook_endpoints WHERE starts_with(partner_id, ${prefix})`
                ])
              )
            )
            yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
            SELECT ${prefix} || k, md5(${tag} || 'ep' || k)::uuid, 'https://receiver.example/plan', NULL, true, 'whsec_plan', 0, 0
            FROM generate_series(1, 40) k`
            // And a partner that registered and deleted endpoints many times (a deletion is soft),
            // one whose deliveries the claim below takes (due at 1, 41, …): migration 0012's claim
            // looked their endpoint up among all of these.
            yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at, deleted_at)
            SELECT ${prefix} || 2, md5(${tag} || 'deleted' || k)::uuid, 'https://receiver.example/plan', NULL, false, '', 0, 0, 1
            FROM generate_series(1, 400) k`
            yield* sql`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload)
            SELECT ${prefix} || (g % 40 + 1), md5(${tag} || 'ev' || g)::uuid, 'webhook.test', g, '{}' FROM generate_series(1, 1000) g`
            yield* sql`INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
            SELECT ${prefix} || (g % 40 + 1), md5(${tag} || 'd' || g)::uuid, md5(${tag} || 'ep' || (g % 40 + 1))::uuid, md5(${tag} || 'ev' || g)::uuid,
              'webhook.test', 'pending', 0, g, g, g
            FROM generate_series(1, 1000) g`
            yield* sql`ANALYZE webhook_deliveries, webhook_events, webhook_endpoints`
            // The plans of the statements inside the functions, as auto_explain reports them to this session.
            const [claimPlan, finishPlan] = yield* Effect.acquireUseRelease(
              Effect.promise(async () => {
                const client = new pg.Client({
                  connectionString: TestDatabase.withSearchPath(url ?? "", row?.schema ?? "public")
                })
                await client.connect()
                return client
              }),
              (client) =>
                Effect.promise(async () => {
                  let notices: Array<string> = []
                  client.on("notice", (n) => notices.push(n.message ?? ""))
                  await client.query("LOAD 'auto_explain'")
                  await client.query(
                    "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice"
                  )
                  // Rolled back: the claim would otherwise also take what other tests left due.
                  await client.query("BEGIN")
                  const claimed = await client.query("SELECT * FROM webhook_claim_due($1, $2, $3, $4)", [
                    2_000,
                    60_000,
                    30,
                    "plan"
                  ])
                  await client.query("ROLLBACK")
                  if (claimed.rowCount !== 30) throw new Error(`the claim took ${claimed.rowCount} rows`)
                  const claim = notices.join("\n")
                  notices = []
                  const outcome = {
                    partner_id: "p_plan",
                    id: randomUUID(),
                    claim_token: "t",
                    created_at: 5,
                    status: "delivered",
                    attempts: 1,
                    next_attempt_at: null,
                    attempt: 1,
                    started_at: 0,
                    duration_ms: 1,
                    response_status: 200,
                    error: null
                  }
                  // Rolled back: days far ahead, so that the outcome's own slot (the default partition)
                  // is one of several.
                  await client.query("BEGIN")
                  await client.query("SELECT webhook_prepare_partitions($1, $2, 3)", [3e12, 86_400_000])
                  await client.query("SET LOCAL auto_explain.log_analyze = on")
                  notices = []
                  await client.query("SELECT * FROM webhook_finish_attempts($1::json, $2)", [
                    JSON.stringify([outcome]),
                    1
                  ])
                  await client.query("ROLLBACK")
                  return [claim, notices.join("\n")] as const
                }),
              (client) => Effect.promise(() => client.end())
            )
            // Each claimed row updated by its whole key, time partition included (migration 0032), not
            // through its endpoint's deliveries.
            expect(claimPlan).toMatch(
              /Index Scan using webhook_deliveries_\w+ on webhook_deliveries_\w+ \w+[^\n]*\n\s*Index Cond: \(\(partner_id = due\.partner_id\) AND (?=[^\n]*\(created_at = due\.created_at\))(?=[^\n]*\(id = due\.id\))/
            )
            expect(claimPlan).not.toMatch(
              /webhook_deliveries_by_endpoint|Hash Join|Merge Join|Seq Scan on webhook_(deliveries|events)/
            )
            // Each claimed row's endpoint by its whole key, never a partner's endpoints filtered by id.
            expect(claimPlan).toMatch(
              /Index Scan using webhook_endpoints_pkey on webhook_endpoints \w+[^\n]*\n\s*Index Cond: \(\(partner_id = c\.partner_id\) AND \(id = c\.endpoint_id\)\)/
            )
            expect(claimPlan).not.toMatch(/Join Filter/)
            // Each outcome looked up by its key (an index scan whose condition is the outcome row), never
            // a pass over the whole table into a hash join.
            expect(finishPlan).toMatch(
              /Nested Loop[\s\S]*Function Scan on json_to_recordset[\s\S]*Index Scan using \w+ on webhook_deliveries_\w+ d\w*[^\n]*\n\s*Index Cond: \(\(?partner_id = \w+\.partner_id\)/
            )
            expect(finishPlan).not.toMatch(/Hash Join|Merge Join|Seq Scan on webhook_deliveries/)
            // Each outcome probes its own slot only (the default partition here), not every day's: the
            // others are pruned as each row is looked up (0032).
            expect(finishPlan).toMatch(
              /Index Cond: \(\(partner_id = t\.partner_id\) AND \(created_at = t\.created_at\) AND \(id = t\.id\)\)/
            )
            const probed = [
              ...finishPlan.matchAll(/Index Scan using \w+ on (webhook_deliveries_\w+) d_\d+\s+\([^)]*\) \(actual/g)
            ]
            expect(probed.map((m) => m[1])).toEqual(["webhook_deliveries_default"])
          }).pipe(Effect.scoped)
      )

      it.effect(
        "retention removes expired rows in bounded batches through indexes only: events by age, deliveries by event, attempts by key (migrations 0018, 0032)",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
            const tag = randomUUID().slice(0, 8)
            const prefix = `p_retain_${tag}_`
            yield* Effect.addFinalizer(() =>
              Effect.ignore(
                Effect.all([
                  sql`DELETE FROM webhook_attempts WHERE starts_with(partner_id, ${prefix})`,
                  sql`DELETE FROM webhook_deliveries WHERE starts_with(partner_id, ${prefix})`,
                  sql`DELETE FROM webhook_events WHERE starts_with(partner_id, ${prefix})`,
                  sql`DELETE FROM webhook_endpoints WHERE starts_with(partner_id, ${prefix})`
                ])
              )
            )
            // 40 partners, 5,000 events that long expired (occurred at 1..5000 ms after the epoch),
            // each delivered once with one attempt, every tenth still pending (it stays), and the
            // same again that has not expired: enough rows that a full scan would cost, so the
            // planner's choice shows.
            yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
            SELECT ${prefix} || k, md5(${tag} || 'ep' || k)::uuid, 'https://receiver.example/retain', NULL, true, 'whsec_r', 0, 0
            FROM generate_series(1, 40) k`
            yield* sql`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload)
            SELECT ${prefix} || (g % 40 + 1), md5(${tag} || 'ev' || g)::uuid, 'webhook.test',
              CASE WHEN g <= 5000 THEN g ELSE 4000000000000 + g END, '{}'
            FROM generate_series(1, 10000) g`
            yield* sql`INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
            SELECT ${prefix} || (g % 40 + 1), md5(${tag} || 'd' || g)::uuid, md5(${tag} || 'ep' || (g % 40 + 1))::uuid,
              md5(${tag} || 'ev' || g)::uuid, 'webhook.test', CASE WHEN g % 10 = 0 THEN 'pending' ELSE 'delivered' END, 1,
              CASE WHEN g % 10 = 0 THEN 4000000000000 ELSE NULL END, e.occurred_at, e.occurred_at
            FROM generate_series(1, 10000) g
            JOIN webhook_events e ON e.partner_id = ${prefix} || (g % 40 + 1) AND e.id = md5(${tag} || 'ev' || g)::uuid`
            yield* sql`INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status)
            SELECT partner_id, id, 1, created_at, 5, 200 FROM webhook_deliveries WHERE starts_with(partner_id, ${prefix})`
            yield* sql`ANALYZE webhook_deliveries, webhook_events, webhook_attempts, webhook_endpoints`
            const [deliveriesPlan, eventsPlan, removed] = yield* Effect.acquireUseRelease(
              Effect.promise(async () => {
                const client = new pg.Client({
                  connectionString: TestDatabase.withSearchPath(url ?? "", row?.schema ?? "public")
                })
                await client.connect()
                return client
              }),
              (client) =>
                Effect.promise(async () => {
                  let notices: Array<string> = []
                  client.on("notice", (n) => notices.push(n.message ?? ""))
                  await client.query("LOAD 'auto_explain'")
                  await client.query(
                    "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice"
                  )
                  // Rolled back: other tests' rows share these tables.
                  await client.query("BEGIN")
                  const n = async (text: string) => (await client.query(text)).rows[0]?.n as number
                  const deliveries = [
                    await n("SELECT webhook_delete_expired_deliveries(5001, 1000) AS n"),
                    await n("SELECT webhook_delete_expired_deliveries(5001, 1000) AS n")
                  ]
                  const deliveriesText = notices.join("\n")
                  notices = []
                  const events = [
                    await n("SELECT webhook_delete_expired_events(5001, 1000) AS n"),
                    await n("SELECT webhook_delete_expired_events(5001, 1000) AS n")
                  ]
                  const eventsText = notices.join("\n")
                  const [left] = (
                    await client.query(
                      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE starts_with(partner_id, $1) AND created_at <= 5000)::int AS deliveries,
                        (SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.partner_id = a.partner_id AND d.id = a.delivery_id
                          WHERE starts_with(a.partner_id, $1) AND d.created_at <= 5000)::int AS attempts,
                        (SELECT count(*) FROM webhook_attempts WHERE starts_with(partner_id, $1))::int AS all_attempts,
                        (SELECT count(*) FROM webhook_events WHERE starts_with(partner_id, $1) AND occurred_at <= 5000)::int AS events`,
                      [prefix]
                    )
                  ).rows
                  await client.query("ROLLBACK")
                  return [deliveriesText, eventsText, { deliveries, events, left }] as const
                }),
              (client) => Effect.promise(() => client.end())
            )
            // 4,500 finished deliveries expired (and 500 pending that stay): two statements take 1,000 each.
            expect(removed.deliveries).toEqual([1000, 1000])
            // Events go only without deliveries left: at most a batch a statement.
            expect(removed.events).toEqual([1000, 1000])
            expect(removed.left).toEqual({ deliveries: 3000, attempts: 3000, all_attempts: 8000, events: 3000 })

            // Expired events in age order from their index, each one's deliveries by its id (0032).
            expect(deliveriesPlan).toMatch(
              /Index Scan using webhook_events_\w+_occurred_at_idx on webhook_events_\w+ ev[^\n]*\n\s*Index Cond: \(occurred_at < [^\n]+\)/
            )
            expect(deliveriesPlan).toMatch(
              /Index Scan using webhook_deliveries_\w+_event_id_idx on webhook_deliveries_\w+ d[^\n]*\n\s*Index Cond: \(event_id = ev\.id\)\n\s*Filter: [^\n]*\bpartner_id\b/
            )
            // Each removed delivery by its whole key, and its attempts by key (rows written without a
            // time partition, as here, are all in the default partition: migration 0032).
            expect(deliveriesPlan).toMatch(
              /Index Scan using webhook_deliveries_\w+ on webhook_deliveries_\w+ \w+[^\n]*\n\s*Index Cond: \(\(partner_id = expired\.partner_id\) AND (?=[^\n]*\(created_at = expired\.created_at\))(?=[^\n]*\(id = expired\.id\))/
            )
            expect(deliveriesPlan).toMatch(
              /Index Scan using webhook_attempts_\w+_pkey on webhook_attempts_\w+ a\w*[^\n]*\n\s*Index Cond: \(\(partner_id = \w+\.partner_id\) AND \(delivery_id = \w+\.id\)\)/
            )
            // An event is kept while a delivery refers to it: an anti-join by key (no foreign key since
            // migration 0032: the engine's writes keep it).
            expect(eventsPlan).toMatch(
              /Nested Loop Anti Join[\s\S]*Index Scan using webhook_events_\w+_occurred_at_idx[\s\S]*Index Scan using webhook_deliveries_\w+_event_id_idx on webhook_deliveries_\w+ d[^\n]*\n\s*Index Cond: \(event_id = ev\.id\)\n\s*Filter: [^\n]*\bpartner_id\b/
            )
            for (const plan of [deliveriesPlan, eventsPlan]) {
              expect(plan).not.toMatch(/Seq Scan on webhook_(events|deliveries|attempts)|Hash Join|Merge Join|Sort/)
              // Neither a partner's newest nor an endpoint's deliveries.
              expect(plan).not.toMatch(
                /partner_id_endpoint_id_idx|Index Scan using \w+_partner_id_created_at_id_idx[^\n]*\n\s*Index Cond: \(partner_id = \w+\.partner_id\)\n/
              )
            }
          }).pipe(Effect.scoped)
      )

      /**
       * The three writes that make a delivery pending, each raced against deleting its endpoint
       * in both orders. However they interleave, the endpoint ends deleted with no pending
       * delivery left behind (one would never be claimed, and would show as pending forever).
       */
      const writers = { event: "an event", retry: "a retry", replay: "a replay", recovery: "a recovery" } as const
      for (const writer of ["event", "retry", "replay", "recovery"] as const)
        for (const deleteFirst of [false, true])
          it.effect(
            `deleting an endpoint ${deleteFirst ? "before" : "after"} ${writers[writer]} makes a delivery pending leaves none pending`,
            () =>
              Effect.gen(function* () {
                const webhooks = yield* Webhooks.Webhooks
                const store = yield* DeliveryQueue
                const ledger = yield* Ledger.Ledger
                const sql = yield* SqlClient.SqlClient
                const partnerId = testPartner(`p_${randomUUID()}`)
                const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/deleted" })
                const now = yield* Clock.currentTimeMillis
                // A delivery of this endpoint claimed by a worker (the retry and replay cases start there).
                const claimed = Effect.gen(function* () {
                  yield* webhooks.sendTest(partnerId, endpoint.id)
                  const claims = yield* store.claimDue(
                    yield* Clock.currentTimeMillis,
                    60_000,
                    1_000,
                    `race-${randomUUID()}`
                  )
                  const claim = claims.find((c) => c.partnerId === partnerId)
                  if (claim === undefined) return yield* Effect.dieMessage("the test delivery was not claimed")
                  return claim
                })
                const outcome = (claim: Effect.Effect.Success<typeof claimed>, status: number) =>
                  Either.getOrThrow(Webhooks.finishedAttempt(claim, { _tag: "Answered", status }, now, now + 5))
                let write: Effect.Effect<unknown, unknown>
                if (writer === "event")
                  write = ledger.credit(partnerId, {
                    kind: "topup",
                    amountMinor: 100_000,
                    reference: `pay-${randomUUID()}`
                  })
                else if (writer === "retry") {
                  const failed = outcome(yield* claimed, 503)
                  expect(failed.next.status).toBe("pending")
                  write = Effect.flatMap(Clock.currentTimeMillis, (at) => store.finishAttempts([failed], at))
                } else if (writer === "recovery") {
                  // Uncertain: its lease ran out (as if the worker died mid-request).
                  yield* store.markSent([yield* claimed], now)
                  expect(yield* store.expireLeases(now + 120_000)).toBeGreaterThanOrEqual(1)
                  const since = new Date(now - 60_000).toISOString()
                  write = Effect.either(
                    Effect.flatMap(Clock.currentTimeMillis, (at) =>
                      webhooks.recover(partnerId, endpoint.id, { since, until: new Date(at + 1).toISOString() })
                    )
                  )
                } else {
                  yield* store.finishAttempts([outcome(yield* claimed, 200)], yield* Clock.currentTimeMillis)
                  const [delivered] = (yield* webhooks.listDeliveries(
                    partnerId,
                    { status: "delivered" },
                    10,
                    undefined
                  )).deliveries
                  write = Effect.either(webhooks.replay(partnerId, delivered!.id))
                }
                const remove = webhooks.deleteEndpoint(partnerId, endpoint.id)
                const written = deleteFirst
                  ? (yield* interleaved(remove, write))[1]
                  : (yield* interleaved(write, remove))[0]

                // The race was real: each write did what it does (a retry is recorded either way).
                if (writer === "event") {
                  const [events] = yield* sql<{
                    n: number
                  }>`SELECT count(*)::int AS n FROM webhook_events WHERE partner_id = ${partnerId}`
                  expect(events?.n).toBe(1)
                }
                if (writer === "retry") expect(written).toHaveLength(1)
                if (writer === "replay" && !deleteFirst)
                  expect(Either.isRight(written as Either.Either<unknown, unknown>)).toBe(true)
                if (writer === "recovery" && !deleteFirst)
                  expect(written).toEqual(Either.right({ requeued: 1, remaining: 0 }))

                expect(yield* webhooks.listEndpoints(partnerId)).toEqual([])
                const [pending] = yield* sql<{
                  n: number
                }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId} AND status = 'pending'`
                expect(pending?.n).toBe(0)
                // A replay (or recovery) that waited for the deletion answers as it does after one.
                if ((writer === "replay" || writer === "recovery") && deleteFirst) {
                  const result = written as Either.Either<unknown, unknown>
                  expect(Either.isLeft(result) && result.left).toBeInstanceOf(Webhooks.DeliveryEndpointDeleted)
                }
              })
          )

      it.effect(
        "an event whose statement began before a deletion and reached the endpoint after it fans out to nothing",
        () =>
          Effect.gen(function* () {
            const webhooks = yield* Webhooks.Webhooks
            const store = yield* EventStore
            const sql = yield* SqlClient.SqlClient
            const partnerId = testPartner(`p_${randomUUID()}`)
            const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/late-fan-out" })
            const now = yield* Clock.currentTimeMillis
            const event = { partnerId, id: randomUUID(), type: "webhook.test" as const, occurredAt: now, payload: "{}" }
            // Another transaction inserts the same event id and stays open: the append's statement
            // has taken its snapshot and waits on that id's lock before it reaches the endpoint.
            const inserted = yield* Deferred.make<void>()
            const rollBack = yield* Deferred.make<void>()
            const other = yield* Effect.fork(
              sql
                .withTransaction(
                  Effect.gen(function* () {
                    // Through the fan-out's own claim of the id (migration 0033): its uncommitted row.
                    yield* sql`INSERT INTO webhook_event_ids (partner_id, id, created_at) VALUES (${partnerId}, ${event.id}::uuid, ${now})`
                    yield* sql`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload, created_at)
                    VALUES (${partnerId}, ${event.id}::uuid, ${event.type}, ${now}, '{}', ${now})`
                    yield* Deferred.succeed(inserted, undefined)
                    yield* Deferred.await(rollBack)
                    return yield* Effect.fail("rolled back" as const)
                  })
                )
                .pipe(Effect.flip)
            )
            yield* Deferred.await(inserted)
            const append = yield* Effect.fork(
              store.appendEvent(event, { _tag: "Endpoint", endpointId: endpoint.id }, now)
            )
            yield* untilEndpointLockWait("the append never waited for the other transaction's event id")
            // The whole deletion runs meanwhile: the append holds nothing on the endpoint yet.
            yield* webhooks.deleteEndpoint(partnerId, endpoint.id)
            yield* Deferred.succeed(rollBack, undefined)
            expect(yield* Fiber.join(other)).toBe("rolled back")
            // The event is written (its id is free again); the deleted endpoint gets no delivery.
            expect(yield* Fiber.join(append)).toBe(0)
            const [deliveries] = yield* sql<{
              n: number
            }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId}`
            expect(deliveries?.n).toBe(0)
            const [events] = yield* sql<{
              n: number
            }>`SELECT count(*)::int AS n FROM webhook_events WHERE partner_id = ${partnerId}`
            expect(events?.n).toBe(1)
          })
      )

      it.effect(
        "a deletion cut short after its first step is finished by the worker's sweep, which skips it while a writer holds it",
        () =>
          Effect.gen(function* () {
            const webhooks = yield* Webhooks.Webhooks
            const store = yield* DeliveryQueue
            const sql = yield* SqlClient.SqlClient
            const partnerId = testPartner(`p_${randomUUID()}`)
            const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/cut-short" })
            yield* webhooks.sendTest(partnerId, endpoint.id)
            yield* webhooks.sendTest(partnerId, endpoint.id)
            const pendingCount = Effect.map(
              sql<{
                n: number
              }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId} AND status = 'pending'`,
              (rows) => rows[0]?.n
            )
            // A business transaction fans an event out to the endpoint and stays open: the
            // deletion's second step waits for it.
            const writer = yield* openTransaction(partnerId)
            const deletion = yield* Effect.fork(webhooks.deleteEndpoint(partnerId, endpoint.id))
            yield* untilEndpointLockWait("the deletion's second step never waited for the open transaction")
            // The host stops there (its statement is cancelled, its transaction rolled back).
            yield* Fiber.interrupt(deletion)
            yield* untilEndpointLockWaits(false, "a statement on webhook_endpoints still waits on a lock after 5 s")

            // The first step stands: the endpoint is deleted for the partner.
            expect(yield* webhooks.listEndpoints(partnerId)).toEqual([])
            const workerLayer = Layer.fresh(
              Webhooks.DeliveryWorker.layer({
                concurrency: 8,
                batchSize: 8,
                leaseMs: 60_000,
                pollIntervalMs: 20,
                drainMs: 5_000
              })
            )
            const worker = yield* Effect.provide(Webhooks.DeliveryWorker, yield* Layer.build(workerLayer))
            const now = yield* Clock.currentTimeMillis
            // While the writer holds the endpoint, the sweep passes it by instead of waiting.
            const skipped = yield* store.purgeDeletedEndpoints(now).pipe(Effect.timeout("5 seconds"), Effect.option)
            expect(skipped).toEqual(Option.some(0))
            // A step of the worker meanwhile does not leave it "due now": a caller scheduling the
            // next step by nextWakeAt would otherwise spin for as long as the writer's transaction.
            yield* worker.runDue.pipe(Effect.timeout("5 seconds"))
            const next = yield* worker.nextWakeAt
            expect(next === undefined || next > now).toBe(true)
            yield* writer.release
            yield* Fiber.join(writer.fiber)
            expect(yield* pendingCount).toBe(3)

            // The worker's next sweep purges it; nothing of it was claimed meanwhile (all three
            // deliveries were still pending, and are gone).
            yield* worker.runDue
            const [left] = yield* sql<{
              n: number
            }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId}`
            expect(left?.n).toBe(0)
            const [mark] = yield* sql<{
              purgePending: boolean
            }>`SELECT purge_pending FROM webhook_endpoints WHERE partner_id = ${partnerId}`
            expect(mark?.purgePending).toBe(false)
            expect(yield* store.purgeDeletedEndpoints(yield* Clock.currentTimeMillis)).toBe(0)
          }).pipe(Effect.scoped)
      )

      it.effect(
        "a deletion waits only for the writers that saw the endpoint active: overlapping business transactions cannot starve it",
        () =>
          Effect.gen(function* () {
            const webhooks = yield* Webhooks.Webhooks
            const sql = yield* SqlClient.SqlClient
            const partnerId = testPartner(`p_${randomUUID()}`)
            const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/busy" })
            const first = yield* openTransaction(partnerId)
            const deletion = yield* Effect.fork(webhooks.deleteEndpoint(partnerId, endpoint.id))
            // The deletion waits for the first transaction, which fanned out to the endpoint.
            yield* untilEndpointLockWait("the deletion never waited for the open transaction")
            // A second one begins and commits nothing yet; the first commits. The deletion must not
            // also wait for the second (it would, were the second holding the endpoint locked, and
            // a third would follow, and so on).
            const second = yield* openTransaction(partnerId)
            yield* first.release
            yield* Fiber.join(first.fiber)
            const finished = yield* Fiber.join(deletion).pipe(Effect.timeout("5 seconds"), Effect.option)
            yield* second.release
            yield* Fiber.join(second.fiber)
            expect(finished._tag).toBe("Some")
            const [pending] = yield* sql<{
              n: number
            }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId} AND status = 'pending'`
            expect(pending?.n).toBe(0)
            const [events] = yield* sql<{
              n: number
            }>`SELECT count(*)::int AS n FROM webhook_events WHERE partner_id = ${partnerId}`
            expect(events?.n).toBe(2)
          })
      )
    }
  })
}
