/**
 * The worker's answer inbox: a parked collector wakes once enough answers wait to matter, else
 * once at the end of the event-loop turn with all of them; and the load rule naming that count.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { makeAnswerInbox } from "../src/webhooks/internal/worker/batch/answerInbox.js"
import { WorkerLoad } from "../src/webhooks/internal/worker/WorkerLoad.js"
import { MAX_WRITE_BATCH } from "../src/webhooks/WorkerConfig.js"

/** Resolves in the check phase after the callbacks queued so far, with what `probe` saw then. */
const atNextImmediate = <A>(probe: () => A) => new Promise<A>((resolve) => setImmediate(() => resolve(probe())))

describe("makeAnswerInbox", () => {
  it.effect("answers what is queued at once, in order, and empties", () =>
    Effect.gen(function* () {
      const inbox = makeAnswerInbox<number>()
      inbox.unsafeOffer(1)
      yield* inbox.offer(2)
      expect(yield* inbox.takeAll(10)).toEqual([1, 2])
      inbox.unsafeOffer(3)
      expect(yield* inbox.takeAll(10)).toEqual([3])
    })
  )

  /**
   * Parks a taker asking for `wakeAt`, offers two answers, and answers whether the taker had them
   * at a check queued before the answers (after their microtasks, before the turn's end), and what
   * it finally took.
   */
  const offerTwo = (wakeAt: number) =>
    Effect.gen(function* () {
      const inbox = makeAnswerInbox<number>()
      const taker = yield* Effect.fork(inbox.takeAll(wakeAt))
      yield* Effect.yieldNow()
      const seen = atNextImmediate(() => taker.unsafePoll() !== null)
      inbox.unsafeOffer(1)
      inbox.unsafeOffer(2)
      return { beforeTurnEnd: yield* Effect.promise(() => seen), taken: yield* Fiber.join(taker) }
    })

  it.live("wakes a parked taker before the turn ends once `wakeAt` answers wait", () =>
    Effect.map(offerTwo(2), (r) => expect(r).toEqual({ beforeTurnEnd: true, taken: [1, 2] }))
  )

  it.live("keeps fewer answers until the turn ends, then hands over all of them", () =>
    Effect.map(offerTwo(3), (r) => expect(r).toEqual({ beforeTurnEnd: false, taken: [1, 2] }))
  )

  it.live("an interrupted taker leaves the answers for the next one", () =>
    Effect.gen(function* () {
      const inbox = makeAnswerInbox<number>()
      const taker = yield* Effect.fork(inbox.takeAll(1))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(taker)
      inbox.unsafeOffer(7)
      expect(yield* Effect.promise(() => atNextImmediate(() => 0))).toBe(0)
      expect(yield* inbox.takeAll(1)).toEqual([7])
      expect(Option.isNone(yield* Effect.timeoutOption(inbox.takeAll(1), 5))).toBe(true)
    })
  )
})

describe("WorkerLoad.answersThatMatter", () => {
  it("is what frees the refill threshold's slots, or every attempt in flight, never under one", () => {
    const load = new WorkerLoad(64) // refills at 16 free slots
    expect(load.answersThatMatter).toBe(1)
    load.claimed(64)
    expect(load.answersThatMatter).toBe(16)
    load.freed(10)
    expect(load.answersThatMatter).toBe(6)
    load.freed(6)
    // Enough slots are free to claim: only the last answer (the loop going idle) matters.
    expect(load.answersThatMatter).toBe(48)
    const small = new WorkerLoad(64)
    small.claimed(5)
    expect(small.answersThatMatter).toBe(5)
  })
})

describe("WorkerLoad.backlogged", () => {
  it("claims pause while a full write batch waits for the writer, and resume as it writes", () => {
    const load = new WorkerLoad(64)
    load.queuedForWriting(MAX_WRITE_BATCH - 1)
    expect(load.backlogged).toBe(false)
    load.queuedForWriting(1)
    expect(load.unwritten).toBe(MAX_WRITE_BATCH)
    expect(load.backlogged).toBe(true)
    expect(load.claimable).toBe(false)
    load.written(1)
    expect(load.backlogged).toBe(false)
    expect(load.claimable).toBe(true)
  })
})
