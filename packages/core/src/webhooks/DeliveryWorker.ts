/**
 * The delivery worker: claims due deliveries (SKIP LOCKED on SQL, so several instances share the
 * work), sends each attempt through the transport, and records the outcome through the pure
 * state machine. It wakes on a signal (an event committed, a replay, a slot freed), at the next
 * due time, or at the poll interval, whichever comes first.
 *
 * Two ways to drive it: `run` is the long-lived loop a host forks; `runDue` performs everything
 * due at the current instant and returns, which is what simulations under TestClock step with.
 */
import { Cause, Clock, Context, Duration, Effect, Fiber, FiberSet, Layer, Option, Ref } from "effect"
import { Ids } from "../Ids.js"
import type { StoreError } from "../StoreError.js"
import { attemptRequest } from "./attemptRequest.js"
import type { AttemptRecord, ClaimedDelivery } from "./Delivery.js"
import { RECEIVER_TIMEOUT_MS, transition } from "./DeliveryState.js"
import { DeliveryWakeup } from "./DeliveryWakeup.js"
import { type AttemptOutcome, isSuccess, WebhookTransport } from "./WebhookTransport.js"
import { WebhookStore } from "./WebhookStore.js"

export interface DeliveryWorkerConfig {
  /** Attempts in flight at once. */
  readonly concurrency: number
  /** Deliveries claimed per query. */
  readonly batchSize: number
  /**
   * How long a claim holds a delivery. Longer than the receiver timeout plus slack: it runs out
   * only when the worker died (or stalled) mid-request, and the delivery then becomes uncertain.
   */
  readonly leaseMs: number
  /** Fallback when no signal arrives (another instance's event without NOTIFY, clock drift). */
  readonly pollIntervalMs: number
  /** On shutdown, how long in-flight attempts may take to finish before they are abandoned. */
  readonly drainMs: number
}

export const defaultWorkerConfig: DeliveryWorkerConfig = {
  concurrency: 64,
  batchSize: 64,
  leaseMs: 60_000,
  pollIntervalMs: 1_000,
  drainMs: RECEIVER_TIMEOUT_MS + 2_000
}

/** Extra time past the receiver timeout before the worker gives up on a transport that ignores it. */
const TRANSPORT_BACKSTOP_MS = 5_000

export interface DeliveryWorkerShape {
  /** Loops until interrupted; on interruption, lets in-flight attempts finish (up to `drainMs`). */
  readonly run: Effect.Effect<never, StoreError>
  /** Expires leases and delivers everything due now, waiting for those attempts; answers how many were attempted. */
  readonly runDue: Effect.Effect<number, StoreError>
  /** The next instant something is due (an attempt or a lease end), if any. */
  readonly nextWakeAt: Effect.Effect<number | undefined, StoreError>
}

const describe = (o: AttemptOutcome): { status: number | null; error: string | null } => {
  switch (o._tag) {
    case "Answered":
      return { status: o.status, error: isSuccess(o) ? null : o.status >= 300 && o.status < 400 ? `redirect ${o.status} (not followed)` : `HTTP ${o.status}` }
    case "TimedOut":
      return { status: null, error: `no answer within ${RECEIVER_TIMEOUT_MS / 1000} s` }
    case "ConnectionFailed":
      return { status: null, error: `connection failed: ${o.message}` }
    case "AddressRefused":
      return { status: null, error: `address refused: ${o.message}` }
  }
}

export class DeliveryWorker extends Context.Tag("@frank/core/DeliveryWorker")<DeliveryWorker, DeliveryWorkerShape>() {
  static readonly layer = (config: DeliveryWorkerConfig = defaultWorkerConfig) =>
    Layer.effect(
      DeliveryWorker,
      Effect.gen(function* () {
        const store = yield* WebhookStore
        const transport = yield* WebhookTransport
        const wakeup = yield* DeliveryWakeup
        const ids = yield* Ids
        // One token per worker instance: it fences outcomes against claims of other instances.
        const claimToken = yield* ids.next

        /** One attempt, from signing to recording. Interruption records nothing (the lease decides). */
        const attempt = (claim: ClaimedDelivery) =>
          Effect.gen(function* () {
            const startedAt = yield* Clock.currentTimeMillis
            const request = yield* attemptRequest(claim, startedAt)
            const outcome = yield* transport
              .send(request)
              .pipe(Effect.timeoutTo({ duration: Duration.millis(RECEIVER_TIMEOUT_MS + TRANSPORT_BACKSTOP_MS), onSuccess: (o) => o, onTimeout: (): AttemptOutcome => ({ _tag: "TimedOut" }) }))
            const finishedAt = yield* Clock.currentTimeMillis
            const { status, error } = describe(outcome)
            const record: AttemptRecord = { attempt: claim.state.attempts, startedAt, durationMs: finishedAt - startedAt, responseStatus: status, error }
            // Retries are scheduled from the attempt's start, so a slow failure does not shift the schedule.
            const next = transition(claim.state, isSuccess(outcome) ? { _tag: "Succeeded" } : { _tag: "Failed" }, startedAt)
            if (next._tag === "Rejected") return yield* Effect.dieMessage(`claimed delivery ${claim.id} refused its outcome: ${next.reason}`)
            yield* store.finishAttempt(claim, next.state, record, finishedAt)
          })

        /**
         * An attempt in a fiber of its own: its interruption (the process dying mid-request, as the
         * simulation's `crash` plays it) ends that attempt alone, and a store failure while
         * recording is logged; either way the claim is left to its lease.
         */
        const isolated = (c: ClaimedDelivery) =>
          Effect.fork(attempt(c)).pipe(
            Effect.flatMap(Fiber.await),
            Effect.flatMap((exit) =>
              exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)
                ? Effect.logError(`delivery ${c.id}: could not record the attempt`, exit.cause)
                : Effect.void
            )
          )

        const claim = (limit: number) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => store.claimDue(now, config.leaseMs, limit, claimToken))

        const expire = Effect.flatMap(Clock.currentTimeMillis, store.expireLeases)

        const runDue = Effect.gen(function* () {
          yield* expire
          let total = 0
          for (;;) {
            const batch = yield* claim(config.batchSize)
            if (batch.length === 0) return total
            total += batch.length
            yield* Effect.forEach(batch, isolated, { concurrency: config.concurrency, discard: true })
          }
        })

        const run = Effect.scoped(
          Effect.gen(function* () {
            const inflight = yield* FiberSet.make<void, StoreError>()
            const busy = yield* Ref.make(0)
            const loop = Effect.gen(function* () {
              for (;;) {
                yield* expire
                const free = config.concurrency - (yield* Ref.get(busy))
                const batch = free > 0 ? yield* claim(Math.min(free, config.batchSize)) : []
                for (const c of batch) {
                  yield* Ref.update(busy, (n) => n + 1)
                  yield* FiberSet.run(
                    inflight,
                    isolated(c).pipe(Effect.ensuring(Effect.zipRight(Ref.update(busy, (n) => n - 1), wakeup.signal)))
                  )
                }
                // A full batch may mean more is due: go again once a slot frees (the attempt signals).
                if (batch.length > 0 && batch.length === Math.min(free, config.batchSize)) continue
                const now = yield* Clock.currentTimeMillis
                const due = free > 0 ? yield* store.nextWakeAt() : undefined
                const waitMs = Math.max(0, Math.min(config.pollIntervalMs, due === undefined ? config.pollIntervalMs : due - now))
                yield* Effect.raceFirst(wakeup.await, Effect.sleep(Duration.millis(waitMs)))
              }
            })
            const loopFiber = yield* Effect.fork(loop)
            // Graceful stop: no new claims, in-flight attempts finish (bounded), then the set closes.
            yield* Effect.addFinalizer(() =>
              Effect.gen(function* () {
                yield* Fiber.interrupt(loopFiber)
                const all = yield* FiberSet.awaitEmpty(inflight).pipe(Effect.timeout(Duration.millis(config.drainMs)), Effect.option)
                if (Option.isNone(all)) yield* Effect.logWarning("delivery worker: in-flight attempts did not finish in time; their deliveries will become uncertain")
              }).pipe(Effect.ignore)
            )
            return yield* Fiber.join(loopFiber)
          })
        )

        return {
          run,
          runDue,
          nextWakeAt: store.nextWakeAt()
        }
      })
    )
}
