/**
 * The periodic upkeep: leases that ran out become uncertain, previous secrets whose rotation window
 * ended are wiped (until then they sign; after it the spec has them gone), and deletions cut short
 * after their first step lose their pending deliveries.
 */
import { Clock, Effect } from "effect"
import type { StoreError } from "../../../StoreError.js"
import type { DeliveryQueueShape } from "../../store/DeliveryQueue.js"
import type { Reports } from "./reports.js"

export const sweep = (store: DeliveryQueueShape, reports: Reports): Effect.Effect<void, StoreError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.all(
      [
        Effect.flatMap(store.expireLeases(now), reports.leasesExpired),
        store.dropExpiredSecrets(now),
        store.purgeDeletedEndpoints(now)
      ],
      { discard: true }
    )
  )
