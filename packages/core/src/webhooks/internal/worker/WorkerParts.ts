/** What every part of one delivery worker shares: its settings and the services it runs on. */
import type { Effect } from "effect"
import type { StoreError } from "../../../StoreError.js"
import type { ClaimedDelivery, FinishedAttempt } from "../../Delivery.js"
import type { DeliveryWakeupShape } from "../../../events/DeliveryWakeup.js"
import type { DeliveryQueueShape } from "../../store/DeliveryQueue.js"
import type { WebhookTransportShape } from "../../transport/WebhookTransport.js"
import type { DeliveryWorkerConfig } from "../../WorkerConfig.js"

export interface WorkerParts {
  readonly config: DeliveryWorkerConfig
  readonly store: DeliveryQueueShape
  readonly transport: WebhookTransportShape
  readonly wakeup: DeliveryWakeupShape
  /** Claims up to `limit` due deliveries under a claim token of their own. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, StoreError>
  /** Marks claims as handed to the network, right before their requests go out (`DeliveryQueue.markSent`). */
  readonly markSent: (claims: ReadonlyArray<ClaimedDelivery>) => Effect.Effect<void, StoreError>
  /** Writes finished attempts and reports them; never fails (see recordOutcomes). */
  readonly record: (finished: ReadonlyArray<FinishedAttempt>) => Effect.Effect<void>
  /** Expired leases, ended rotation windows, unfinished deletions, then `healthCheck`. */
  readonly sweep: Effect.Effect<void, StoreError>
  /** Pauses the endpoints the health rule holds for (disableFailing.ts); nothing when the rule is off. */
  readonly healthCheck: Effect.Effect<void, StoreError>
}
