/**
 * The health rule in the worker's sweep: endpoints that have failed long enough are paused, each
 * in a transaction of its own that also emits `webhook.endpoint.disabled` through the outbox.
 *
 * A sweep rather than a check per outcome: the rule can come true by time alone (a span reaching
 * its age with no new outcome), so a periodic look is needed anyway, and the outcome write stays
 * as it was but for the health columns. The look reads a partial index of endpoints with strikes,
 * nearly always empty (docs/decisions.md, "Endpoint health").
 */
import { Clock, Effect } from "effect"
import type { OutboxShape } from "../../../events/Outbox.js"
import type { StoreError } from "../../../StoreError.js"
import { disableForFailing, type WebhookEndpoint } from "../../Endpoint.js"
import type { DisablePolicy } from "../../EndpointHealth.js"
import { endpointDisabledEvent } from "../endpointEvents.js"
import type { DeliveryQueueShape } from "../../store/DeliveryQueue.js"
import type { Reports } from "./reports.js"

/** Endpoints one sweep pauses at most; the rest wait for the next sweep (a second later). */
export const DISABLES_PER_SWEEP = 100

export const disableFailing = (
  store: DeliveryQueueShape,
  outbox: OutboxShape,
  policy: DisablePolicy,
  reports: Reports
): Effect.Effect<void, StoreError> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const candidates = yield* store.failingEndpoints(now - policy.afterMs, policy.minFailures, DISABLES_PER_SWEEP)
    if (candidates.length === 0) return
    const disabled: Array<WebhookEndpoint> = []
    for (const c of candidates) {
      // The rule is decided again on the locked row: a success may have come in since the look.
      const paused = yield* store.disableEndpoint(c.partnerId, c.id, disableForFailing(policy, now), (e) =>
        Effect.asVoid(outbox.emit(e.partnerId, endpointDisabledEvent(e)))
      )
      if (paused !== undefined) disabled.push(paused)
    }
    if (disabled.length === 0) return
    yield* outbox.wake
    yield* Effect.logWarning("webhook endpoints paused for failing").pipe(
      Effect.annotateLogs({ endpoints: disabled.map((e) => e.id).join(", ") })
    )
    yield* reports.endpointsDisabled(disabled)
  })

/** When the next endpoint meets the rule (its span reaches the age), if any is on its way. */
export const nextDisableAt = (
  store: DeliveryQueueShape,
  policy: DisablePolicy
): Effect.Effect<number | undefined, StoreError> =>
  Effect.map(store.earliestStrikes(policy.minFailures), (at) => (at === undefined ? undefined : at + policy.afterMs))
