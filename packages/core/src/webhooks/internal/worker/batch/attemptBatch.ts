/**
 * Sends a claimed batch, signed at its start in one call, and queues each attempt's answer as soon
 * as the receiver gave it. The transport's callback only queues (`BatchMessage`): with an HTTP
 * transport the whole batch runs on one fiber and undici's callbacks, no fiber per attempt, and
 * everything the answer changes happens on the worker's collector fiber. An attempt that could not
 * be signed (a defect) is logged and left to its lease without holding up the others. The caller
 * queues the batch's end however this ends; interruption records nothing.
 *
 * Right before the first request goes out, the whole batch is marked sent in one write
 * (`markSent`, run as the transport's `release`: after the transport prepared the requests, before
 * their bytes leave): a crash before it leaves the claims to return to pending at lease expiry,
 * one after it leaves them uncertain. The unsigned attempts are marked too: a defect is not retried in
 * a loop every lease but shown as uncertain, for an operator's recovery. If the mark fails,
 * nothing is sent and the claims go back to pending at lease expiry.
 */
import { Clock, Effect, Exit } from "effect"
import { attemptRequests } from "../../../transport/attemptRequest.js"
import type { ClaimedDelivery } from "../../../Delivery.js"
import type { AttemptRequest } from "../../../transport/WebhookTransport.js"
import type { AnswerSink } from "./answerInbox.js"
import { startAttemptSpans } from "./attemptSpans.js"
import type { BatchSlots } from "./batchSlots.js"
import type { BatchMessage } from "./BatchMessage.js"
import type { WorkerParts } from "../WorkerParts.js"

export const attemptBatch = (
  { transport, markSent }: Pick<WorkerParts, "transport" | "markSent">,
  claims: ReadonlyArray<ClaimedDelivery>,
  slots: BatchSlots,
  answers: AnswerSink<BatchMessage>
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const clock = yield* Effect.clock
    const startedAt = yield* Clock.currentTimeMillis
    const signed = yield* attemptRequests(claims, startedAt)
    const requests: Array<AttemptRequest> = []
    // requests[j] is the attempt on claims[claimIndex[j]].
    const claimIndex: Array<number> = []
    for (let i = 0; i < signed.length; i++) {
      const exit = signed[i] as Exit.Exit<AttemptRequest>
      if (Exit.isSuccess(exit)) {
        requests.push(exit.value)
        claimIndex.push(i)
      } else {
        yield* Effect.logError(`delivery ${claims[i]?.id}: could not sign the attempt`, exit.cause)
        yield* answers.offer({ _tag: "Unsigned", slots, index: i })
      }
    }
    // Uninterruptible as the claim is: an interrupted statement's cancel could reach the next one.
    const mark = Effect.uninterruptible(markSent(claims)).pipe(
      Effect.as(true),
      Effect.catchAll((error) =>
        Effect.as(Effect.logError("delivery worker: could not mark a batch sent; it waits out its lease", error), false)
      )
    )
    if (requests.length === 0) return yield* Effect.asVoid(mark)
    const endSpan = yield* startAttemptSpans(requests, (j) => claims[claimIndex[j] ?? -1] as ClaimedDelivery, clock)
    // The transport enforces `timeoutMs` itself (WebhookTransport contract), so no timer here.
    yield* transport.sendBatch(
      requests,
      (j, outcome) => {
        const index = claimIndex[j] ?? -1
        const claim = claims[index]
        if (claim === undefined) return
        endSpan(j, outcome)
        const answeredAt = clock.unsafeCurrentTimeMillis()
        answers.unsafeOffer({ _tag: "Answered", slots, index, claim, outcome, startedAt, answeredAt })
      },
      mark
    )
  })
