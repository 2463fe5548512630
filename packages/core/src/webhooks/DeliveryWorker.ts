/**
 * The delivery worker: claims due deliveries (SKIP LOCKED on SQL, so several instances share the
 * work), sends each attempt through the transport, and records the outcome through the pure
 * state machine. It wakes on a signal (an event committed, a replay, a slot freed), at the next
 * due time, or at the poll interval, whichever comes first.
 *
 * Two ways to drive it: `run` is the long-lived loop a host forks; `runDue` performs everything
 * due at the current instant and returns, which is what simulations under TestClock step with.
 */
import {
  Cause,
  Chunk,
  Clock,
  Context,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  FiberSet,
  Layer,
  Option,
  Queue,
  Runtime
} from "effect"
import { Ids } from "../Ids.js"
import type { StoreError } from "../StoreError.js"
import { attemptRequest, attemptRequestNow } from "./attemptRequest.js"
import { type BatchSlots, makeBatchSlots } from "./batchSlots.js"
import type { ClaimedDelivery, FinishedAttempt } from "./Delivery.js"
import { RECEIVER_TIMEOUT_MS } from "./DeliveryState.js"
import { DeliveryObserver, type DeliveryObserverShape } from "./DeliveryObserver.js"
import { DeliveryWakeup } from "./DeliveryWakeup.js"
import { finishedAttempt } from "./finishedAttempt.js"
import { sendBatchWith } from "./sendBatchWith.js"
import { type AttemptRequest, WebhookTransport } from "./WebhookTransport.js"
import { type SignNow, WebhookSigner } from "./WebhookSigner.js"
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
  /**
   * How often expired leases (they matter only after a worker died), ended rotation windows and
   * unfinished deletions (only after a host stopped mid-deletion) are looked for.
   */
  readonly sweepIntervalMs?: number
}

export const defaultWorkerConfig: DeliveryWorkerConfig = {
  concurrency: 64,
  batchSize: 64,
  leaseMs: 60_000,
  pollIntervalMs: 1_000,
  drainMs: RECEIVER_TIMEOUT_MS + 2_000,
  sweepIntervalMs: 1_000
}

/** The attempt signed synchronously; a signer that throws is a defect of that attempt alone. */
const signedNow = (claim: ClaimedDelivery, now: number, signNow: SignNow): Exit.Exit<AttemptRequest> => {
  try {
    return Exit.succeed(attemptRequestNow(claim, now, signNow))
  } catch (defect) {
    return Exit.die(defect)
  }
}

/** Outcomes written per statement at most; also how many may wait for the writer before claims pause. */
const MAX_WRITE_BATCH = 256
/** Queued behind the last outcome on shutdown: the writer stops once it reaches it. */
const DRAINED = Symbol("DeliveryWorker/drained")

export interface DeliveryWorkerShape {
  /** Loops until interrupted; on interruption, lets in-flight attempts finish (up to `drainMs`). */
  readonly run: Effect.Effect<never, StoreError>
  /** Sweeps (expired leases, ended rotation windows, unfinished deletions) and delivers everything due now, waiting for those attempts; answers how many were attempted. */
  readonly runDue: Effect.Effect<number, StoreError>
  /** The next instant something is due (an attempt, a lease end, a rotation window's end), if any; unfinished deletions have no deadline and wait for any sweep. */
  readonly nextWakeAt: Effect.Effect<number | undefined, StoreError>
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
        const observer = yield* Effect.serviceOption(DeliveryObserver)
        // Reports cannot fail; one that dies is logged, and the worker goes on.
        const report = (what: string, effect: (o: DeliveryObserverShape) => Effect.Effect<void>): Effect.Effect<void> =>
          Option.match(observer, {
            onNone: () => Effect.void,
            onSome: (o) =>
              Effect.catchAllDefect(effect(o), (defect) => Effect.logError(`delivery observer: ${what} failed`, defect))
          })
        /** Reports the attempts of `finished` the store recorded (`ids`): an outcome fenced off by a lost claim was counted as uncertain already. */
        const reportRecorded = (finished: ReadonlyArray<FinishedAttempt>, ids: ReadonlyArray<string>) => {
          if (ids.length === finished.length) return report("attemptsRecorded", (o) => o.attemptsRecorded(finished))
          const recorded = new Set(ids)
          return report("attemptsRecorded", (o) => o.attemptsRecorded(finished.filter((f) => recorded.has(f.claim.id))))
        }
        // One token per claim statement (this instance's id and a count), not one per instance: an
        // outcome is recorded only while its own claim holds the row, so it is fenced against every
        // later claim of the delivery, this instance's included — its write held up past the lease,
        // the delivery turned `uncertain` and replayed, and this worker claiming it again.
        const instanceToken = yield* ids.next
        let claimsMade = 0

        const sendBatch = sendBatchWith(transport)

        /**
         * Sends the claimed batch, signed at its start, and hands each attempt's outcome to
         * `onFinished` as soon as the receiver answered (a plain callback: with an HTTP transport
         * the whole batch runs on one fiber and undici's callbacks, no fiber per attempt — the
         * worker's CPU per delivery is its throughput, bench/webhooks). Each attempt's slot is
         * settled in `slots` when it reports; the caller closes `slots` when this ends, however it
         * ends. An attempt that could not be signed (a defect) is logged and left to its lease
         * without holding up the others. Interruption records nothing.
         */
        const attemptBatch = (
          claims: ReadonlyArray<ClaimedDelivery>,
          onFinished: (f: FinishedAttempt) => void,
          slots: BatchSlots
        ): Effect.Effect<void> =>
          Effect.flatMap(
            Effect.all([Effect.clock, Effect.runtime<never>(), WebhookSigner]),
            ([clock, runtime, signer]) => {
              const startedAt = clock.unsafeCurrentTimeMillis()
              // Bound: an embedder's class-based signer keeps its `this`, as the transport and wake-up do.
              const signNow = signer.signNow?.bind(signer)
              // A synchronous signer signs the batch in a plain loop: an Effect per attempt costs
              // more than the HMAC itself (bench/webhooks).
              const signing: Effect.Effect<ReadonlyArray<Exit.Exit<AttemptRequest>>> =
                signNow === undefined
                  ? Effect.forEach(claims, (c) => Effect.exit(attemptRequest(c, startedAt)))
                  : Effect.sync(() => claims.map((c) => signedNow(c, startedAt, signNow)))
              return Effect.flatMap(signing, (signed) => {
                const requests: Array<AttemptRequest> = []
                // requests[j] is the attempt on claims[claimIndex[j]].
                const claimIndex: Array<number> = []
                for (let i = 0; i < signed.length; i++) {
                  const exit = signed[i] as Exit.Exit<AttemptRequest>
                  if (Exit.isSuccess(exit)) {
                    requests.push(exit.value)
                    claimIndex.push(i)
                  } else {
                    slots.settle(i)
                    Runtime.runFork(runtime)(
                      Effect.logError(`delivery ${claims[i]?.id}: could not sign the attempt`, exit.cause)
                    )
                  }
                }
                if (requests.length === 0) return Effect.void
                // The transport enforces `timeoutMs` itself (WebhookTransport contract), so no timer here.
                return sendBatch(requests, (j, outcome) => {
                  const i = claimIndex[j] ?? -1
                  const claim = claims[i]
                  if (claim === undefined || !slots.settle(i)) return
                  const finished = finishedAttempt(claim, outcome, startedAt, clock.unsafeCurrentTimeMillis())
                  // Left is a bug (a claimed delivery is always `delivering`): the claim is left to its lease.
                  if (Either.isRight(finished)) onFinished(finished.right)
                  else Runtime.runFork(runtime)(Effect.logError(finished.left))
                })
              })
            }
          )

        const claim = (limit: number) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            store.claimDue(now, config.leaseMs, limit, `${instanceToken}/${++claimsMade}`)
          )

        /**
         * The periodic upkeep: leases that ran out become uncertain, previous secrets whose
         * rotation window ended are wiped (until then they sign; after it the spec has them gone),
         * and deletions cut short after their first step lose their pending deliveries.
         */
        const sweep = Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.all(
            [
              Effect.tap(store.expireLeases(now), (expired) =>
                expired > 0 ? report("leasesExpired", (o) => o.leasesExpired(expired)) : Effect.void
              ),
              store.dropExpiredSecrets(now),
              store.purgeDeletedEndpoints(now)
            ],
            { discard: true }
          )
        )

        /** Writes a batch's outcomes (the step-by-step path); a store failure leaves the claims to their leases. */
        const recordAll = (finished: ReadonlyArray<FinishedAttempt>) =>
          finished.length === 0
            ? Effect.void
            : Effect.flatMap(Clock.currentTimeMillis, (now) =>
                Effect.matchEffect(store.finishAttempts(finished, now), {
                  onFailure: (e) => Effect.logError("delivery worker: could not record attempts", e),
                  onSuccess: (ids) => reportRecorded(finished, ids)
                })
              )

        const runDue = Effect.gen(function* () {
          yield* sweep
          let total = 0
          for (;;) {
            const batch = yield* claim(Math.max(1, Math.min(config.batchSize, config.concurrency)))
            if (batch.length === 0) return total
            total += batch.length
            const finished: Array<FinishedAttempt> = []
            const slots = makeBatchSlots(batch.length, () => {})
            yield* Effect.ensuring(
              attemptBatch(batch, (f) => finished.push(f), slots),
              Effect.sync(() => slots.close())
            )
            yield* recordAll(finished)
          }
        })

        /**
         * The long-lived loop. Per delivery it costs a share of one claim and one outcome write.
         * A slot is an HTTP request in flight: it frees when the receiver answered, and the
         * outcome goes to one writer fiber that records the outcomes queued meanwhile in one
         * statement. Until its outcome is written the delivery stays `delivering` under its lease,
         * exactly as while the request was in flight, so nothing else can claim it; a crash before
         * the write leaves it to the lease (uncertain), as a crash mid-request does. Claims wait
         * until a quarter of the slots are free unless the worker is idle, and stop while too many
         * outcomes wait for the writer (the database is slower than the receivers). Expired leases
         * are swept periodically.
         */
        const run = Effect.scoped(
          Effect.gen(function* () {
            const inflight = yield* FiberSet.make<void, StoreError>()
            // Plain counters, not Refs: the attempts' callbacks change them outside any fiber, and
            // JavaScript runs one callback or fiber step at a time, so nothing interleaves.
            // Attempts holding a slot (from the claim until the answer):
            let busy = 0
            // Outcomes queued or being written: bounds the work claimed ahead of the writer.
            let unwritten = 0
            const writes = yield* Queue.unbounded<FinishedAttempt | typeof DRAINED>()
            const writer = Effect.gen(function* () {
              for (;;) {
                const taken = Chunk.toReadonlyArray(yield* Queue.takeBetween(writes, 1, MAX_WRITE_BATCH))
                const batch = taken.filter((f): f is FinishedAttempt => f !== DRAINED)
                if (batch.length > 0) {
                  const now = yield* Clock.currentTimeMillis
                  const written = yield* Effect.exit(store.finishAttempts(batch, now))
                  // The claims stay with their leases: those deliveries become uncertain.
                  if (written._tag === "Failure")
                    for (const f of batch)
                      yield* Effect.logError(`delivery ${f.claim.id}: could not record the attempt`, written.cause)
                  else yield* reportRecorded(batch, written.value)
                  unwritten -= batch.length
                  yield* wakeup.signal
                }
                if (batch.length < taken.length) return
              }
            })
            const refillAt = Math.max(1, Math.floor(config.concurrency / 4))
            const runtime = yield* Effect.runtime<never>()
            // Called through the service, so an embedder's class-based wake-up keeps its `this`.
            const signalNow =
              wakeup.unsafeSignal !== undefined
                ? () => wakeup.unsafeSignal?.()
                : () => Runtime.runFork(runtime)(wakeup.signal)
            // Freed slots wake the loop only when that can change its decision: the free slots just
            // reached the refill threshold, or nothing is in flight any more. (Waking it on every
            // attempt costs a loop turn per delivery for nothing.)
            const release = (count: number) => {
              if (count <= 0) return
              const freeBefore = config.concurrency - busy
              busy -= count
              if (busy === 0 || (freeBefore < refillAt && config.concurrency - busy >= refillAt)) signalNow()
            }
            const recordQueued = (f: FinishedAttempt) => {
              unwritten++
              writes.unsafeOffer(f)
            }
            /**
             * Claims and starts the attempts as one step that shutdown cannot cut: interrupted after
             * the claim committed but before the attempts started, the deliveries would sit out
             * their lease and end up uncertain without a request ever sent. (It also keeps the
             * loop from being interrupted mid-statement: @effect/sql-pg cancels an interrupted
             * statement with pg_cancel_backend, which can reach the next statement on that
             * connection once it is back in the pool, such as the writer's.) The attempts
             * themselves stay interruptible.
             */
            const claimAndStart = (limit: number) =>
              Effect.uninterruptibleMask((restore) =>
                Effect.tap(claim(limit), (batch) => {
                  if (batch.length === 0) return Effect.void
                  busy += batch.length
                  const slots = makeBatchSlots(batch.length, release)
                  // The batch is a FiberSet fiber of its own; within it, each attempt ends alone (sendBatch).
                  // The fiber starts uninterruptible (forked in this mask), so the slots are closed
                  // whenever it ends, even if interrupted before the batch began.
                  return FiberSet.run(
                    inflight,
                    restore(attemptBatch(batch, recordQueued, slots)).pipe(
                      Effect.catchAllCause((cause) =>
                        Cause.isInterruptedOnly(cause)
                          ? Effect.failCause(cause)
                          : Effect.logError("delivery worker: an attempt batch failed", cause)
                      ),
                      Effect.ensuring(Effect.sync(() => slots.close()))
                    )
                  )
                })
              )
            const sweepEveryMs = config.sweepIntervalMs ?? defaultWorkerConfig.sweepIntervalMs ?? 1_000
            let nextSweepAt = 0
            let lastSweepAt = Number.NEGATIVE_INFINITY
            const loop = Effect.gen(function* () {
              for (;;) {
                const now = yield* Clock.currentTimeMillis
                if (now >= nextSweepAt) {
                  yield* Effect.uninterruptible(sweep)
                  lastSweepAt = now
                  nextSweepAt = now + sweepEveryMs
                }
                const inFlight = busy
                const backlog = unwritten >= MAX_WRITE_BATCH
                const free = config.concurrency - inFlight
                const wanted = Math.min(free, config.batchSize)
                // Small refills cost a claim statement per delivery; wait for a quarter of the slots
                // unless nothing is in flight (then any free slot is worth a claim).
                const batch =
                  wanted > 0 && !backlog && (free >= refillAt || inFlight === 0)
                    ? yield* claimAndStart(wanted)
                    : undefined
                // A full batch may mean more is due: go again.
                if (batch !== undefined && batch.length === wanted) continue
                if (batch === undefined) {
                  // Slots are busy: an attempt finishing (or a write) signals; the sweep and poll still run on time.
                  yield* Effect.raceFirst(wakeup.await, Effect.sleep(Duration.millis(config.pollIntervalMs)))
                  continue
                }
                // Work was just claimed: the next poll comes soon enough for retries falling due meanwhile.
                const due = batch.length > 0 ? undefined : yield* Effect.uninterruptible(store.nextWakeAt())
                const at = yield* Clock.currentTimeMillis
                if (due !== undefined && due <= at && due > lastSweepAt) {
                  // Due since the last sweep yet not claimed: a lease that ran out (another instance
                  // died mid-request) is the sweep's to take, so sweep now and go again.
                  nextSweepAt = at
                  continue
                }
                // Overdue since before the last sweep: rows another instance holds or is claiming
                // right now. Polling for them with no pause would only load the database.
                const waitMs =
                  due === undefined || due <= at ? config.pollIntervalMs : Math.min(config.pollIntervalMs, due - at)
                yield* Effect.raceFirst(wakeup.await, Effect.sleep(Duration.millis(waitMs)))
              }
            })
            // In the scope, not a child of this fiber: a child would be interrupted with the loop on
            // shutdown, and the outcomes of the attempts still draining would never be written.
            const writerFiber = yield* Effect.forkScoped(writer)
            const loopFiber = yield* Effect.fork(loop)
            // Graceful stop: no new claims, in-flight attempts finish and their outcomes are written
            // (together bounded by drainMs), then the writer stops.
            yield* Effect.addFinalizer(() =>
              Effect.gen(function* () {
                // The loop stops at its next interruptible point (never inside a claim); that wait
                // counts against drainMs too, so a hung database cannot hold shutdown forever.
                yield* Fiber.interruptFork(loopFiber)
                // Finalizers run uninterruptibly; without `interruptible` the timeout could not end the wait.
                const drained = yield* Effect.interruptible(
                  Effect.all([
                    Fiber.await(loopFiber),
                    FiberSet.awaitEmpty(inflight),
                    // Every outcome is queued by now; the marker goes behind them and ends the writer.
                    Queue.offer(writes, DRAINED),
                    Fiber.await(writerFiber)
                  ])
                ).pipe(Effect.timeout(Duration.millis(config.drainMs)), Effect.option)
                if (Option.isNone(drained))
                  yield* Effect.logWarning(
                    "delivery worker: in-flight attempts did not finish in time; their deliveries will become uncertain"
                  )
                yield* Fiber.interrupt(writerFiber)
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
