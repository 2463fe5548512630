/**
 * How the worker loop waits: a lease that ran out before the next scheduled sweep (another
 * instance died mid-request) is swept at once, not polled for in a tight loop until the sweep;
 * an event committed after a claim's snapshot is claimed on the next turn, without a sweep.
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhooks } from "@frank/core"
import { MemoryWebhookStore, ScriptedReceiver, testPartner } from "@frank/core/testing"
import { Clock, Duration, Effect, Fiber, Layer } from "effect"
import { workerEngine } from "./support/workerEngine.js"
import { DeliveryQueue, type DeliveryQueueShape, webhookStoresContext } from "@frank/core/stores"

// The dead instance's short lease ends well before the worker's second sweep (long interval).
const DEAD_LEASE_MS = 50
const config = {
  concurrency: 8,
  batchSize: 8,
  leaseMs: 60_000,
  pollIntervalMs: 1_000,
  drainMs: 1_000,
  sweepIntervalMs: 2_000
}

/** The memory webhook store with some of its queue's methods replaced (they may call the originals). */
const memoryStoreWithQueue = (replace: (queue: DeliveryQueueShape) => Partial<DeliveryQueueShape>) =>
  Layer.effectContext(
    Effect.map(MemoryWebhookStore.make, (stores) =>
      webhookStoresContext({ ...stores, queue: { ...stores.queue, ...replace(stores.queue) } })
    )
  )

describe("DeliveryWorker waiting", () => {
  // Live clock: the defect was a loop of sleep(0) turns, which only real time shows.
  it.live("a lease that ran out between sweeps is swept at once, without polling the store in a loop", () => {
    let nextWakeAtCalls = 0
    const countingStore = memoryStoreWithQueue((queue) => ({
      nextWakeAt: () => Effect.tap(queue.nextWakeAt(), () => Effect.sync(() => nextWakeAtCalls++))
    }))
    const engine = workerEngine(config, countingStore, ScriptedReceiver.layer(200))
    return Effect.gen(function* () {
      const webhooks = yield* Webhooks.Webhooks
      const store = yield* DeliveryQueue
      const worker = yield* Webhooks.DeliveryWorker
      const endpoint = yield* webhooks.createEndpoint(testPartner("p1"), { url: "https://a.example/hook" })
      yield* webhooks.sendTest(testPartner("p1"), endpoint.id)
      // Another instance claimed the delivery, sent it and died: its 50 ms lease runs out after our first sweep.
      const claimedAt = yield* Clock.currentTimeMillis
      yield* store.markSent(yield* store.claimDue(claimedAt, DEAD_LEASE_MS, 10, "dead-instance/1"), claimedAt)
      const fiber = yield* Effect.fork(worker.run)
      yield* Effect.sleep(Duration.millis(500))
      yield* Fiber.interrupt(fiber)
      const [delivery] = (yield* webhooks.listDeliveries(testPartner("p1"), {}, 10, undefined)).deliveries
      // Swept as soon as the lease ran out, not at the next scheduled sweep (2 s).
      expect(delivery?.status).toBe("uncertain")
      // A handful of loop turns, not hundreds of store round trips.
      expect(nextWakeAtCalls).toBeLessThan(10)
    }).pipe(Effect.provide(engine))
  })

  // Under a steady stream of events a claim often misses one committed just after its snapshot;
  // sweeping for each such miss made the sweep's statements run dozens of times a second.
  it.live("an event committed after the claim's snapshot is claimed again, not swept for", () => {
    let missNextDue = false
    let sweeps = 0
    const missingStore = memoryStoreWithQueue((queue) => ({
      // The first claim that has work misses it, as one whose snapshot predates the commit.
      claimDue: (now, leaseMs, limit, token) =>
        Effect.flatMap(queue.nextWakeAt(), (due) => {
          if (!missNextDue || due === undefined || due > now) return queue.claimDue(now, leaseMs, limit, token)
          missNextDue = false
          return Effect.succeed([])
        }),
      expireLeases: (now) => Effect.tap(queue.expireLeases(now), () => Effect.sync(() => sweeps++))
    }))
    const engine = workerEngine(config, missingStore, ScriptedReceiver.layer(200))
    return Effect.gen(function* () {
      const webhooks = yield* Webhooks.Webhooks
      const worker = yield* Webhooks.DeliveryWorker
      const endpoint = yield* webhooks.createEndpoint(testPartner("p1"), { url: "https://a.example/hook" })
      const fiber = yield* Effect.fork(worker.run)
      yield* Effect.sleep(Duration.millis(100))
      missNextDue = true
      yield* webhooks.sendTest(testPartner("p1"), endpoint.id)
      yield* Effect.sleep(Duration.millis(400))
      yield* Fiber.interrupt(fiber)
      const [delivery] = (yield* webhooks.listDeliveries(testPartner("p1"), {}, 10, undefined)).deliveries
      expect(missNextDue).toBe(false)
      expect(delivery?.status).toBe("delivered")
      // The sweep at the start only: the next one is due after the 2 s interval.
      expect(sweeps).toBe(1)
    }).pipe(Effect.provide(engine))
  })
})
