/**
 * The health rule's part of the memory `DeliveryQueue`: the failing endpoints it reads and the
 * pause it writes in the worker's sweep.
 */
import { Effect } from "effect"
import type { DeliveryQueueShape } from "../../../webhooks/store/DeliveryQueue.js"
import { key, live, type MemoryWebhookState, publicEndpoint } from "./memoryWebhookState.js"

type EndpointHealthPart = Pick<DeliveryQueueShape, "failingEndpoints" | "earliestStrikes" | "disableEndpoint">

export const memoryEndpointHealth = (state: MemoryWebhookState): EndpointHealthPart => {
  const { endpoints, locked } = state
  return {
    failingEndpoints: (strikesSinceBy, minFailures, limit) =>
      locked(() =>
        [...endpoints.values()]
          .filter(
            (e) =>
              e.deletedAt === null &&
              e.active &&
              e.health.strikes >= minFailures &&
              e.health.strikesSince !== null &&
              e.health.strikesSince <= strikesSinceBy
          )
          .sort((a, b) => (a.health.strikesSince ?? 0) - (b.health.strikesSince ?? 0))
          .slice(0, limit)
          .map((e) => ({ partnerId: e.partnerId, id: e.id }))
      ),

    earliestStrikes: (minFailures) =>
      locked(() => {
        let earliest: number | undefined
        for (const e of endpoints.values()) {
          const at = e.health.strikesSince
          if (e.deletedAt !== null || !e.active || e.health.strikes < minFailures || at === null) continue
          if (earliest === undefined || at < earliest) earliest = at
        }
        return earliest
      }),

    // The change is made under the lock, `alongside` after it (it appends an event, which takes the
    // lock too); if `alongside` fails, the endpoint goes back as it was, as a rollback would leave it.
    disableEndpoint: (partnerId, id, disable, alongside) =>
      Effect.gen(function* () {
        const change = yield* locked(() => {
          const e = live(state, partnerId, id)
          const next = e === undefined ? undefined : disable(publicEndpoint(e))
          if (e === undefined || next === undefined) return undefined
          endpoints.set(key(partnerId, id), { ...next, deletedAt: null })
          return { before: e, next }
        })
        if (change === undefined) return undefined
        yield* Effect.tapError(alongside(change.next), () =>
          locked(() => endpoints.set(key(partnerId, id), change.before))
        )
        return change.next
      })
  }
}
