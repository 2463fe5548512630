/**
 * The delivery log as a partner sees it through the `Webhooks` service: list and read deliveries,
 * replay one, recover a window of failed ones. Always addressed with the partner's id.
 */
import { Context, type Effect, type Either } from "effect"
import type { DeliveryId, EndpointId, PartnerId } from "../../EntityIds.js"
import type { StoreError } from "../../StoreError.js"
import type {
  AttemptBucket,
  DeliveryCursor,
  DeliveryDetail,
  DeliveryFilter,
  DeliveryPage,
  DeliveryRecord
} from "../Delivery.js"
import type { DeliveryState } from "../DeliveryState.js"
import type { RecoveryResult, RecoveryWindow } from "../recoveryWindow.js"
import type { RecoveryRules, ReplaySnapshot } from "./storeTypes.js"

/** The delivery log's methods: list, get, replay and recover deliveries. */
export interface DeliveryLogShape {
  /** A page of the partner's deliveries, newest first, filtered. */
  readonly listDeliveries: (
    partnerId: PartnerId,
    filter: DeliveryFilter,
    limit: number,
    after: DeliveryCursor | undefined
  ) => Effect.Effect<DeliveryPage, StoreError>
  /** The partner's delivery with its event's payload and its attempts, or undefined (also for another partner's). */
  readonly getDelivery: (partnerId: PartnerId, id: DeliveryId) => Effect.Effect<DeliveryDetail | undefined, StoreError>
  /**
   * The endpoint's attempts that started in [since, since + buckets × width), counted per bucket of
   * `width` ms, oldest first (a bucket without attempts is answered with zeros).
   */
  readonly attemptStats: (
    partnerId: PartnerId,
    endpointId: EndpointId,
    since: number,
    width: number,
    buckets: number
  ) => Effect.Effect<ReadonlyArray<AttemptBucket>, StoreError>
  /** Runs `rule` on the locked delivery and writes the state it returns; undefined when there is no such delivery. */
  readonly updateDelivery: <E>(
    partnerId: PartnerId,
    id: DeliveryId,
    rule: (snapshot: ReplaySnapshot) => Either.Either<DeliveryState, E>,
    now: number
  ) => Effect.Effect<Either.Either<DeliveryRecord, E> | undefined, StoreError>
  /**
   * Bulk recovery, under the endpoint lock a replay takes: decides the endpoint by `rules.endpoint`
   * (a failure is answered as it is, nothing changed), then requeues, oldest first, up to `limit`
   * of the endpoint's deliveries created in the window that are `dead_lettered` or `uncertain`,
   * each in the state `rules.delivery` decides (one it refuses stays as it is). `remaining` counts
   * the window's deliveries still in those two states afterwards. Undefined when the partner has
   * no such endpoint, deleted or not.
   */
  readonly recoverDeliveries: <E>(
    partnerId: PartnerId,
    endpointId: EndpointId,
    window: RecoveryWindow,
    limit: number,
    rules: RecoveryRules<E>,
    now: number
  ) => Effect.Effect<Either.Either<RecoveryResult, E> | undefined, StoreError>
}

/** The delivery log port of the webhook store (see the module comment). */
export class DeliveryLog extends Context.Tag("@frank/core/DeliveryLog")<DeliveryLog, DeliveryLogShape>() {}
