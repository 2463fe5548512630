/**
 * The batch form of a transport's `send`: its own `sendBatch` when it has one, otherwise one fiber
 * per attempt. Each attempt's fiber is on its own, as `send`'s contract wants it: an attempt that
 * is interrupted (the simulation's `crash`) ends alone and reports nothing, while its siblings
 * carry on and report.
 */
import { Cause, Effect, Fiber } from "effect"
import type { AttemptOutcome, AttemptRequest, WebhookTransportShape } from "./WebhookTransport.js"

export type SendBatch = (
  requests: ReadonlyArray<AttemptRequest>,
  onOutcome: (index: number, outcome: AttemptOutcome) => void
) => Effect.Effect<void>

const viaSend =
  (transport: WebhookTransportShape): SendBatch =>
  (requests, onOutcome) =>
    Effect.flatMap(
      Effect.forEach(requests, (request, index) =>
        Effect.fork(Effect.map(transport.send(request), (outcome) => onOutcome(index, outcome)))
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

export const sendBatchWith = (transport: WebhookTransportShape): SendBatch => {
  const { sendBatch } = transport
  // Called through the transport, so a class-based transport keeps its `this`.
  return sendBatch === undefined
    ? viaSend(transport)
    : (requests, onOutcome) => sendBatch.call(transport, requests, onOutcome)
}
