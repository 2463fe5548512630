/**
 * A transport's `sendBatch` built from its `send`, one fiber per attempt: for transports with no
 * batch path of their own (the simulation kit's scripted receiver, an embedder's). Each attempt's
 * fiber is on its own, as `send`'s contract wants it: an attempt that is interrupted (the
 * simulation's `crash`) ends alone and reports nothing, while its siblings carry on and report.
 * Nothing is prepared ahead: `release` runs first, and the attempts start when it answers true.
 */
import { Cause, Effect, Fiber } from "effect"
import type { AttemptOutcome, AttemptRequest, WebhookTransportShape } from "./WebhookTransport.js"

/** A batch sender made of a single-attempt sender (for transports without batching). */
export const sendEach =
  (send: WebhookTransportShape["send"]): WebhookTransportShape["sendBatch"] =>
  (requests, onOutcome, release) =>
    Effect.flatMap(release, (go) => (go ? forkEach(send, requests, onOutcome) : Effect.void))

const forkEach = (
  send: WebhookTransportShape["send"],
  requests: ReadonlyArray<AttemptRequest>,
  onOutcome: (index: number, outcome: AttemptOutcome) => void
): Effect.Effect<void> =>
  Effect.flatMap(
    Effect.forEach(requests, (request, index) =>
      Effect.fork(Effect.map(send(request), (outcome) => onOutcome(index, outcome)))
    ),
    (fibers) =>
      Effect.forEach(
        fibers,
        (fiber) =>
          Effect.flatMap(Fiber.await(fiber), (exit) =>
            // A transport never fails; a defect is a bug worth a log line, not the batch's end.
            exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)
              ? Effect.logError("webhook transport: an attempt died", exit.cause)
              : Effect.void
          ),
        { discard: true }
      ).pipe(
        // Interrupted, the batch stops its attempts before it ends, so none reports afterwards
        // (children alone would be interrupted only after the batch's own finalizers).
        Effect.onInterrupt(() => Fiber.interruptAll(fibers))
      )
  )
