/**
 * The worker's reports to an embedder's `DeliveryObserver`, when one is provided. Reports cannot
 * fail; one that dies is logged, and the worker goes on.
 */
import { Effect, Option } from "effect"
import type { FinishedAttempt } from "../../Delivery.js"
import { DeliveryObserver, type DeliveryObserverShape } from "../../DeliveryObserver.js"
import type { WebhookEndpoint } from "../../Endpoint.js"

export interface Reports {
  /** The attempts of `finished` the store recorded (`ids`): an outcome fenced off by a lost claim was counted as uncertain already. */
  readonly attemptsRecorded: (
    finished: ReadonlyArray<FinishedAttempt>,
    ids: ReadonlyArray<string>
  ) => Effect.Effect<void>
  readonly leasesExpired: (count: number) => Effect.Effect<void>
  readonly endpointsDisabled: (endpoints: ReadonlyArray<WebhookEndpoint>) => Effect.Effect<void>
}

export const makeReports = Effect.map(Effect.serviceOption(DeliveryObserver), (observer): Reports => {
  const report = (what: string, effect: (o: DeliveryObserverShape) => Effect.Effect<void>): Effect.Effect<void> =>
    Option.match(observer, {
      onNone: () => Effect.void,
      onSome: (o) =>
        Effect.catchAllDefect(effect(o), (defect) => Effect.logError(`delivery observer: ${what} failed`, defect))
    })
  return {
    attemptsRecorded: (finished, ids) => {
      if (ids.length === finished.length) return report("attemptsRecorded", (o) => o.attemptsRecorded(finished))
      const recorded = new Set(ids)
      return report("attemptsRecorded", (o) => o.attemptsRecorded(finished.filter((f) => recorded.has(f.claim.id))))
    },
    leasesExpired: (count) => (count > 0 ? report("leasesExpired", (o) => o.leasesExpired(count)) : Effect.void),
    endpointsDisabled: (endpoints) =>
      report("endpointsDisabled", (o) =>
        o.endpointsDisabled === undefined ? Effect.void : o.endpointsDisabled(endpoints)
      )
  }
})
