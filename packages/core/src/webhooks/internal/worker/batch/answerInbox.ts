/**
 * The mailbox between the transport's callbacks and the answer collector. Waking a fiber costs
 * more than settling an answer, and a batch's answers tend to arrive together, so a parked
 * collector is not woken per answer: it names how many answers would matter now (`wakeAt`, the
 * count that lets the claim loop claim again) and is woken as soon as that many wait, or else
 * once at the end of the event-loop turn with everything that arrived in it.
 */
import { Effect } from "effect"

/** Where a batch's fiber and the transport's callbacks put their messages. */
export interface AnswerSink<A> {
  readonly offer: (message: A) => Effect.Effect<unknown>
  /** From a plain callback (an HTTP answer arriving), where no fiber is at hand. */
  readonly unsafeOffer: (message: A) => unknown
}

export interface AnswerInbox<A> extends AnswerSink<A> {
  /** Everything queued; parks while nothing is, until `wakeAt` messages wait or the turn ends. */
  readonly takeAll: (wakeAt: number) => Effect.Effect<ReadonlyArray<A>>
}

type Resume<A> = (taken: Effect.Effect<ReadonlyArray<A>>) => void

/** Runs `f` once the current event-loop turn's I/O callbacks have run. */
const atTurnEnd: (f: () => void) => void =
  typeof globalThis.setImmediate === "function" ? (f) => setImmediate(f) : (f) => setTimeout(f, 0)

export const makeAnswerInbox = <A>(): AnswerInbox<A> => {
  let messages: Array<A> = []
  let parked: { readonly resume: Resume<A>; readonly wakeAt: number } | undefined
  let turnEndPending = false

  const takeNow = (): ReadonlyArray<A> => {
    const taken = messages
    messages = []
    return taken
  }
  const wake = () => {
    const p = parked
    if (p === undefined || messages.length === 0) return
    parked = undefined
    p.resume(Effect.sync(takeNow))
  }
  const onTurnEnd = () => {
    turnEndPending = false
    wake()
  }
  const unsafeOffer = (message: A) => {
    messages.push(message)
    if (parked === undefined) return
    if (messages.length >= parked.wakeAt) wake()
    else if (!turnEndPending) {
      turnEndPending = true
      atTurnEnd(onTurnEnd)
    }
  }
  return {
    unsafeOffer,
    offer: (message) => Effect.sync(() => unsafeOffer(message)),
    takeAll: (wakeAt) =>
      Effect.suspend(() =>
        messages.length > 0
          ? Effect.succeed(takeNow())
          : Effect.async<ReadonlyArray<A>>((resume) => {
              parked = { resume, wakeAt: Math.max(1, wakeAt) }
              return Effect.sync(() => {
                parked = undefined
              })
            })
      )
  }
}
