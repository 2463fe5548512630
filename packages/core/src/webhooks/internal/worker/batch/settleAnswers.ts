/**
 * What a run of batch messages comes to: the finished attempts to write, slots settled (each
 * once: a transport reporting an index twice, or after its batch ended, frees nothing and its
 * outcome is dropped), and whether the shutdown marker was among them.
 */
import { Effect, Either } from "effect"
import type { FinishedAttempt } from "../../../Delivery.js"
import { finishedAttempt } from "../../../transport/finishedAttempt.js"
import { type BatchMessage, DRAINED, type Drained } from "./BatchMessage.js"

export interface Settled {
  readonly finished: ReadonlyArray<FinishedAttempt>
  readonly drained: boolean
}

export const settleAnswers = (messages: ReadonlyArray<BatchMessage | Drained>): Effect.Effect<Settled> =>
  Effect.gen(function* () {
    const finished: Array<FinishedAttempt> = []
    let drained = false
    for (const m of messages) {
      if (m === DRAINED) drained = true
      else if (m._tag === "Ended") m.slots.close()
      else if (m._tag === "Unsigned") m.slots.settle(m.index)
      else if (m.slots.settle(m.index)) {
        const f = finishedAttempt(m.claim, m.outcome, m.startedAt, m.answeredAt)
        // Left is a bug (a claimed delivery is always `delivering`): the claim is left to its lease.
        if (Either.isRight(f)) finished.push(f.right)
        else yield* Effect.logError(f.left)
      }
    }
    return { finished, drained }
  })
