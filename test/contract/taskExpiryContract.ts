/**
 * The hold-expiry contract of generation tasks, on every store set (memory, PGlite, Postgres):
 * the sweep fails a task still unfinished at its `expiresAt` with TASK_EXPIRED and refunds its
 * hold (row kind `task_hold_expired`) with the failure's events, once; a provider report after
 * `expiresAt` settles nothing and is kept as `lateReport`; a confirm racing the sweep settles the
 * task exactly once; the kit's Simulation runs the sweep as the clock passes the expiry.
 */
import { expect, layer } from "@effect/vitest"
import { type Ids, Ledger, Tasks } from "@frank/core"
import { type EngineStores, Simulation } from "@frank/core/testing"
import { Clock, Effect, type Layer, TestClock } from "effect"
import {
  contractExpiry,
  eventTypes,
  failure,
  image,
  setup,
  T0,
  taskRows,
  tasksEngine,
  withCost
} from "./tasksContract.js"
import type { TaskStore } from "@frank/core/stores"

const TTL = 86_400_000

/** A clock stopped at `at`, for one fiber racing others that run on TestClock. */
const stoppedClock = (at: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => at,
  currentTimeMillis: Effect.succeed(at),
  unsafeCurrentTimeNanos: () => BigInt(at) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(at) * 1_000_000n),
  sleep: () => Effect.void
})

/** The whole sweep, in the contract's small batches, until nothing due is left. */
const sweep = Effect.flatMap(Tasks.TaskExpiry, (x) => x.sweep)

/** Settlement rows of a task (everything but its reservation). */
const settlements = (partnerId: Ids.PartnerId, taskId: string) =>
  Effect.map(taskRows(partnerId, taskId), (rows) => rows.filter((r) => !r.startsWith("reservation:")))

export const taskExpiryContract = (
  engine: string,
  stores: Layer.Layer<EngineStores | TaskStore, unknown>,
  options: { readonly racingTasks: number } = { racingTasks: 12 }
) =>
  layer(tasksEngine(stores), { timeout: 120_000 })(`task hold expiry on ${engine}`, (it) => {
    it.effect("a task unfinished at expiresAt fails TASK_EXPIRED and its hold is refunded, once", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup()
        const { task } = yield* tasks.launch(partnerId, image)
        yield* tasks.report(partnerId, task.id, { _tag: "Started" })
        yield* TestClock.setTime(task.expiresAt - 1)
        yield* sweep
        expect((yield* tasks.get(partnerId, task.id)).status).toBe("running")
        expect(yield* tasks.nextExpiryAt).toBeLessThanOrEqual(task.expiresAt)

        yield* TestClock.setTime(task.expiresAt)
        yield* sweep
        const expired = yield* tasks.get(partnerId, task.id)
        expect(expired).toMatchObject({
          status: "failed",
          failure: { code: "TASK_EXPIRED" },
          finishedAt: task.expiresAt,
          costMinor: null,
          lateReport: null
        })
        expect(yield* ledger.hold(partnerId, task.id)).toMatchObject({
          status: "refunded",
          releasedMinor: task.reservedMinor,
          settledAt: task.expiresAt
        })
        expect(yield* taskRows(partnerId, task.id)).toEqual([
          `reservation:task_hold:${task.reservedMinor}`,
          `refund:task_hold_expired:${task.reservedMinor}`
        ])
        expect(yield* ledger.balance(partnerId)).toMatchObject({ reserved: 0, used: 0, available: 5000 })
        expect(yield* eventTypes(partnerId)).toEqual(["billing.refunded", "task.failed", "task.refunded"])

        // Later sweeps find nothing of it.
        yield* TestClock.adjust("2 hours")
        yield* sweep
        expect(yield* taskRows(partnerId, task.id)).toHaveLength(2)
        expect(yield* eventTypes(partnerId)).toHaveLength(3)
      })
    )

    it.effect("the sweep takes every due task in bounded batches and leaves the rest", () =>
      Effect.gen(function* () {
        const { partnerId, tasks } = yield* setup()
        const early = yield* Effect.forEach(Array.from({ length: 20 }), () => tasks.launch(partnerId, image))
        yield* TestClock.adjust("1 hour")
        const late = (yield* tasks.launch(partnerId, image)).task
        yield* TestClock.setTime(T0 + TTL)
        const done = yield* sweep
        // 20 of this test and any the earlier tests left: several batches of 7.
        expect(done.expired).toBeGreaterThanOrEqual(20)
        expect(done.batches).toBeGreaterThanOrEqual(Math.ceil(20 / contractExpiry.batchSize))
        for (const { task } of early) expect((yield* tasks.get(partnerId, task.id)).failure?.code).toBe("TASK_EXPIRED")
        expect((yield* tasks.get(partnerId, late.id)).status).toBe("queued")
        expect(yield* tasks.nextExpiryAt).toBe(late.expiresAt)
      })
    )

    it.effect("a report after expiry settles nothing: the task keeps it as lateReport", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup()
        const swept = (yield* tasks.launch(partnerId, image)).task
        const unswept = (yield* tasks.launch(partnerId, image)).task
        yield* TestClock.setTime(swept.expiresAt)
        yield* tasks.expireDue(1)
        const later = swept.expiresAt + 5_000
        yield* TestClock.setTime(later)

        // After the sweep: recorded, nothing settled.
        const a = yield* tasks.report(partnerId, swept.id, withCost(100))
        expect(a).toMatchObject({ late: true, task: { status: "failed", failure: { code: "TASK_EXPIRED" } } })
        expect(a.task.lateReport).toEqual({
          outcome: "succeeded",
          receivedAt: later,
          costMinor: 100,
          failureCode: null
        })
        // A late start never hides the late end.
        yield* tasks.report(partnerId, swept.id, { _tag: "Started" })
        expect((yield* tasks.get(partnerId, swept.id)).lateReport?.outcome).toBe("succeeded")
        expect(yield* settlements(partnerId, swept.id)).toEqual([`refund:task_hold_expired:${swept.reservedMinor}`])

        // Before the sweep reached it: the report expires the task itself, the same way.
        const b = yield* tasks.report(partnerId, unswept.id, failure)
        expect(b).toMatchObject({ late: true, changed: true })
        expect(b.task).toMatchObject({
          status: "failed",
          failure: { code: "TASK_EXPIRED" },
          lateReport: { outcome: "failed", failureCode: "PROVIDER_ERROR", costMinor: null }
        })
        expect(yield* settlements(partnerId, unswept.id)).toEqual([`refund:task_hold_expired:${unswept.reservedMinor}`])
        yield* tasks.expireDue(100)
        expect(yield* settlements(partnerId, unswept.id)).toHaveLength(1)
        expect(yield* ledger.balance(partnerId)).toMatchObject({ reserved: 0, used: 0, available: 5000 })
        const types = yield* eventTypes(partnerId)
        expect(types.filter((t) => t === "task.failed")).toHaveLength(2)
        expect(types.filter((t) => t === "billing.refunded")).toHaveLength(2)
        expect(types).not.toContain("billing.settled")
        expect(types).not.toContain("task.succeeded")

        // A report just before expiresAt still settles as usual.
        const inTime = (yield* tasks.launch(partnerId, image)).task
        yield* TestClock.setTime(inTime.expiresAt - 1)
        expect(yield* tasks.report(partnerId, inTime.id, withCost(100))).toMatchObject({
          late: false,
          task: { status: "succeeded", lateReport: null }
        })
      })
    )

    it.effect("confirms racing the sweep settle each task exactly once", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup()
        const launched = yield* Effect.forEach(Array.from({ length: options.racingTasks }), () =>
          tasks.launch(partnerId, image)
        )
        const expiresAt = launched[0]!.task.expiresAt
        // The reports run a millisecond before expiry (so each would confirm), the sweep at
        // expiry on a clock of its own: whichever takes a task's lock first decides it.
        yield* TestClock.setTime(expiresAt - 1)
        const reports = launched.map(({ task }) => Effect.either(tasks.report(partnerId, task.id, withCost(100))))
        const sweeps = Array.from({ length: 3 }, () =>
          Effect.withClock(tasks.expireDue(options.racingTasks, 4), stoppedClock(expiresAt))
        )
        yield* Effect.all([...reports, ...sweeps], { concurrency: "unbounded" })

        let succeeded = 0
        for (const { task } of launched) {
          const now = yield* tasks.get(partnerId, task.id)
          const rows = yield* settlements(partnerId, task.id)
          if (now.status === "succeeded") {
            succeeded++
            expect(rows).toEqual([`confirm:task_charge:100`, `refund:task_release:${task.reservedMinor - 100}`])
          } else {
            expect(now.failure?.code).toBe("TASK_EXPIRED")
            expect(rows).toEqual([`refund:task_hold_expired:${task.reservedMinor}`])
          }
          expect((yield* ledger.hold(partnerId, task.id))?.status).toBe(
            now.status === "succeeded" ? "confirmed" : "refunded"
          )
        }
        const expired = launched.length - succeeded
        const types = yield* eventTypes(partnerId)
        expect(types.filter((t) => t === "task.succeeded")).toHaveLength(succeeded)
        expect(types.filter((t) => t === "billing.settled")).toHaveLength(succeeded)
        expect(types.filter((t) => t === "task.failed")).toHaveLength(expired)
        expect(types.filter((t) => t === "task.refunded")).toHaveLength(expired)
        expect(yield* ledger.balance(partnerId)).toMatchObject({ reserved: 0, used: succeeded })
      })
    )

    it.effect("the kit's Simulation sweeps as the clock passes an expiry", () =>
      Effect.gen(function* () {
        const { partnerId, tasks } = yield* setup()
        const { task } = yield* tasks.launch(partnerId, image)
        const simulation = yield* Simulation
        yield* simulation.advance(TTL - 60_000)
        expect((yield* tasks.get(partnerId, task.id)).status).toBe("queued")
        yield* simulation.advance("2 minutes")
        const expired = yield* tasks.get(partnerId, task.id)
        expect(expired.failure?.code).toBe("TASK_EXPIRED")
        // Swept at the first interval start at or after expiresAt (intervals of a minute).
        expect(expired.finishedAt).toBe(Math.ceil(task.expiresAt / 60_000) * 60_000)
        const ledger = yield* Ledger.Ledger
        expect((yield* ledger.hold(partnerId, task.id))?.status).toBe("refunded")
      })
    )
  })
