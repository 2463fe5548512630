/**
 * The receiver's dedup store (ProcessedEvents) on every engine: memory, embedded PGlite, and
 * PostgreSQL when DATABASE_URL is set. One suite holds all of them to the same behaviour; the SQL
 * engines also show that the action's own writes commit or roll back with the marker.
 */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Errors, WebhookReceiver } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Ref, TestClock, TestServices } from "effect"
import { MemoryProcessedEvents, PgliteDatabase, SqlProcessedEvents, TestDatabase } from "../src/index.js"

const T0 = Date.UTC(2027, 0, 15, 8, 0, 0)

/** A fresh event id per case keeps cases independent on a shared store. */
const newEventId = () => randomUUID()

class BusinessFailure {
  readonly _tag = "BusinessFailure"
}

const liveSleep = (millis: number) => TestServices.provideLive(Effect.sleep(millis))

const tags = <A>(results: ReadonlyArray<WebhookReceiver.ConsumeResult<A>>) => results.map((r) => r._tag)
const count = (tagsList: ReadonlyArray<string>, tag: string) => tagsList.filter((t) => t === tag).length

const processedEventsSuite = (engine: string, store: () => Layer.Layer<WebhookReceiver.ProcessedEvents, unknown>) =>
  layer(store(), { timeout: 120_000 })(`ProcessedEvents on ${engine}`, (it) => {
    it.effect("runs the action once; a repeated delivery is Duplicate and does not run it", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const runs = yield* Ref.make(0)
        const action = Effect.as(
          Ref.updateAndGet(runs, (n) => n + 1),
          "stored"
        )
        const id = newEventId()
        expect(yield* WebhookReceiver.consumeOnce(id, action)).toEqual({ _tag: "Processed", value: "stored" })
        expect(yield* WebhookReceiver.consumeOnce(id, action)).toEqual({ _tag: "Duplicate" })
        expect(yield* WebhookReceiver.consumeOnce(id, action)).toEqual({ _tag: "Duplicate" })
        expect(yield* Ref.get(runs)).toBe(1)
        // The record's time is Effect's Clock, not the wall clock.
        expect(yield* Effect.flatMap(WebhookReceiver.ProcessedEvents, (p) => p.processedAt(id))).toEqual(
          Option.some(T0)
        )
        // Another event id is independent.
        expect((yield* WebhookReceiver.consumeOnce(newEventId(), action))._tag).toBe("Processed")
        expect(yield* Ref.get(runs)).toBe(2)
      })
    )

    it.effect("a failing action records nothing and its own error comes back; a retry runs it", () =>
      Effect.gen(function* () {
        const runs = yield* Ref.make(0)
        const id = newEventId()
        const failing = Effect.zipRight(
          Ref.update(runs, (n) => n + 1),
          Effect.fail(new BusinessFailure())
        )
        expect(yield* Effect.flip(WebhookReceiver.consumeOnce(id, failing))).toBeInstanceOf(BusinessFailure)
        expect(yield* Effect.flatMap(WebhookReceiver.ProcessedEvents, (p) => p.processedAt(id))).toEqual(Option.none())
        expect(
          yield* WebhookReceiver.consumeOnce(
            id,
            Effect.zipRight(
              Ref.update(runs, (n) => n + 1),
              Effect.succeed(1)
            )
          )
        ).toEqual({
          _tag: "Processed",
          value: 1
        })
        expect(yield* Ref.get(runs)).toBe(2)
        expect(Option.isSome(yield* Effect.flatMap(WebhookReceiver.ProcessedEvents, (p) => p.processedAt(id)))).toBe(
          true
        )
      })
    )

    it.effect("a dying or interrupted action records nothing", () =>
      Effect.gen(function* () {
        const died = newEventId()
        const exit = yield* Effect.exit(WebhookReceiver.consumeOnce(died, Effect.dieMessage("bug in the handler")))
        expect(exit._tag).toBe("Failure")
        expect((yield* WebhookReceiver.consumeOnce(died, Effect.succeed("ok")))._tag).toBe("Processed")

        const interrupted = newEventId()
        const started = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(
          WebhookReceiver.consumeOnce(interrupted, Effect.zipRight(Deferred.succeed(started, undefined), Effect.never))
        )
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        expect(yield* Effect.flatMap(WebhookReceiver.ProcessedEvents, (p) => p.processedAt(interrupted))).toEqual(
          Option.none()
        )
        expect((yield* WebhookReceiver.consumeOnce(interrupted, Effect.succeed("ok")))._tag).toBe("Processed")
      })
    )

    it.effect("20 concurrent deliveries of one eventId run the action once", () =>
      Effect.gen(function* () {
        const runs = yield* Ref.make(0)
        const id = newEventId()
        // A real sleep (not the TestClock) keeps the first delivery inside its action while the others arrive.
        const action = Effect.zipRight(
          liveSleep(30),
          Ref.updateAndGet(runs, (n) => n + 1)
        )
        const results = yield* Effect.all(
          Array.from({ length: 20 }, () => WebhookReceiver.consumeOnce(id, action)),
          { concurrency: "unbounded" }
        )
        expect(yield* Ref.get(runs)).toBe(1)
        expect(count(tags(results), "Processed")).toBe(1)
        expect(count(tags(results), "Duplicate")).toBe(19)
      })
    )

    it.effect("concurrent deliveries after a failed first attempt: the next one runs it, not a Duplicate", () =>
      Effect.gen(function* () {
        const attempts = yield* Ref.make(0)
        const id = newEventId()
        // The first attempt fails; every later attempt succeeds.
        const action = Effect.gen(function* () {
          yield* liveSleep(20)
          const n = yield* Ref.updateAndGet(attempts, (k) => k + 1)
          if (n === 1) return yield* Effect.fail(new BusinessFailure())
          return n
        })
        const outcomes = yield* Effect.all(
          Array.from({ length: 6 }, () => Effect.either(WebhookReceiver.consumeOnce(id, action))),
          { concurrency: "unbounded" }
        )
        const failures = outcomes.filter((o) => o._tag === "Left")
        const results = outcomes.flatMap((o) => (o._tag === "Right" ? [o.right] : []))
        expect(failures).toHaveLength(1)
        expect(results).toContainEqual({ _tag: "Processed", value: 2 })
        expect(count(tags(results), "Duplicate")).toBe(4)
        expect(yield* Ref.get(attempts)).toBe(2)
      })
    )
  })

/** An SQL database of the receiver's own; `SqlProcessedEvents.ensureTable` has not run on it. */
type Database = () => Layer.Layer<SqlClient.SqlClient, unknown>

const withTable = (database: Database) =>
  SqlProcessedEvents.layer.pipe(
    Layer.provideMerge(Layer.effectDiscard(SqlProcessedEvents.ensureTable)),
    Layer.provideMerge(database())
  )

const ordersTable = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`CREATE TABLE IF NOT EXISTS receiver_orders (event_id text PRIMARY KEY, amount integer NOT NULL)`
)
const insertOrder = (eventId: string, amount: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`INSERT INTO receiver_orders (event_id, amount) VALUES (${eventId}, ${amount})`
  )
const orderCount = (eventId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*)::int AS n FROM receiver_orders WHERE event_id = ${eventId}`,
      (r) => r[0]?.n
    )
  )
const markerCount = (eventId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_processed_events WHERE event_id = ${eventId}`,
      (r) => r[0]?.n
    )
  )

const sqlSuite = (engine: string, database: Database) => {
  layer(withTable(database), { timeout: 120_000 })(`SqlProcessedEvents.layer on ${engine}`, (it) => {
    it.effect("the action's own SQL writes roll back together with the marker when it fails", () =>
      Effect.gen(function* () {
        yield* ordersTable
        const id = newEventId()
        const failsAfterWriting = Effect.zipRight(insertOrder(id, 100), Effect.fail(new BusinessFailure()))
        expect(yield* Effect.flip(WebhookReceiver.consumeOnce(id, failsAfterWriting))).toBeInstanceOf(BusinessFailure)
        expect(yield* orderCount(id)).toBe(0)
        expect(yield* markerCount(id)).toBe(0)

        expect((yield* WebhookReceiver.consumeOnce(id, insertOrder(id, 100)))._tag).toBe("Processed")
        expect(yield* orderCount(id)).toBe(1)
        expect(yield* markerCount(id)).toBe(1)
        // The duplicate does not try the insert again (it would fail on the primary key).
        expect((yield* WebhookReceiver.consumeOnce(id, insertOrder(id, 100)))._tag).toBe("Duplicate")
      })
    )

    it.effect("an SqlError of the action comes back as the action's error, not as a StoreError", () =>
      Effect.gen(function* () {
        yield* ordersTable
        const taken = newEventId()
        yield* insertOrder(taken, 1)
        const id = newEventId()
        const error = yield* Effect.flip(WebhookReceiver.consumeOnce(id, insertOrder(taken, 2)))
        expect(error).toBeInstanceOf(SqlError)
        expect(error).not.toBeInstanceOf(Errors.StoreError)
        expect(yield* markerCount(id)).toBe(0)
      })
    )

    it.effect("inside an enclosing transaction the marker commits or rolls back with the caller's work", () =>
      Effect.gen(function* () {
        yield* ordersTable
        const sql = yield* SqlClient.SqlClient
        const id = newEventId()
        const aborted = yield* Effect.flip(
          sql.withTransaction(
            Effect.zipRight(WebhookReceiver.consumeOnce(id, insertOrder(id, 5)), Effect.fail("caller failed" as const))
          )
        )
        expect(aborted).toBe("caller failed")
        expect(yield* markerCount(id)).toBe(0)
        expect(yield* orderCount(id)).toBe(0)
        expect((yield* sql.withTransaction(WebhookReceiver.consumeOnce(id, insertOrder(id, 5))))._tag).toBe("Processed")
        expect(yield* markerCount(id)).toBe(1)
      })
    )
  })

  layer(SqlProcessedEvents.layer.pipe(Layer.provideMerge(database())), { timeout: 120_000 })(
    `SqlProcessedEvents.layer on ${engine} without its table`,
    (it) => {
      it.effect("recording fails with a StoreError and the action does not run", () =>
        Effect.gen(function* () {
          const ran = yield* Ref.make(false)
          const error = yield* Effect.flip(WebhookReceiver.consumeOnce(newEventId(), Ref.set(ran, true)))
          expect(error).toBeInstanceOf(Errors.StoreError)
          // Named by store and operation, with the database's own error kept as the cause.
          expect(error).toMatchObject({ message: "processed events: recording the event failed" })
          expect((error as Errors.StoreError).cause).toBeInstanceOf(SqlError)
          expect(yield* Ref.get(ran)).toBe(false)
          // The kit's own DDL is what the receiver runs at startup; afterwards the same call succeeds.
          yield* SqlProcessedEvents.ensureTable
          yield* SqlProcessedEvents.ensureTable
          expect((yield* WebhookReceiver.consumeOnce(newEventId(), Ref.set(ran, true)))._tag).toBe("Processed")
          expect(yield* Ref.get(ran)).toBe(true)
        })
      )
    }
  )
}

const pglite: Database = () => PgliteDatabase.layer

processedEventsSuite("memory", () => MemoryProcessedEvents.layer)
processedEventsSuite("PGlite", () => withTable(pglite))
sqlSuite("PGlite", pglite)

const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) {
  const postgres: Database = () => TestDatabase.layerPostgres(url)
  processedEventsSuite("PostgreSQL", () => withTable(postgres))
  sqlSuite("PostgreSQL", postgres)
}
