/**
 * What a claimed batch tells the worker's fibers, in order, through one queue: each attempt's
 * answer (queued from the transport's callback, the only thing that callback does), an attempt
 * that could not be signed, and the batch's end. Ordered delivery matters: the end frees the slots
 * of attempts that never answered, so it must come after every answer that did.
 */
import type { ClaimedDelivery } from "../../../Delivery.js"
import type { AttemptOutcome } from "../../../transport/WebhookTransport.js"
import type { BatchSlots } from "./batchSlots.js"

export type BatchMessage =
  | {
      readonly _tag: "Answered"
      readonly slots: BatchSlots
      readonly index: number
      readonly claim: ClaimedDelivery
      readonly outcome: AttemptOutcome
      readonly startedAt: number
      readonly answeredAt: number
    }
  | { readonly _tag: "Unsigned"; readonly slots: BatchSlots; readonly index: number }
  | { readonly _tag: "Ended"; readonly slots: BatchSlots }

/** Queued behind the last batch on shutdown: the collector, then the writer, stop once they reach it. */
export const DRAINED = Symbol("DeliveryWorker/drained")
export type Drained = typeof DRAINED
