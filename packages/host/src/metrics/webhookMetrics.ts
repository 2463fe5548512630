/**
 * The webhook series of the host's /metrics: what the delivery worker did (attempts by result and
 * kind of answer, leases that ran out, endpoints paused for failing) and how far behind it is (deliveries due now and the age of
 * the oldest, read from the database at each scrape, so every instance on one database reports
 * the same backlog). Labels take a handful of fixed values each: no partner, endpoint or URL, which
 * would make the series unbounded and leak who the partners are.
 */
import { Webhooks } from "@frank/core"
import { Clock, Duration, Effect, Layer } from "effect"
import { Metrics } from "./Metrics.js"

/** What became of the delivery after the attempt. */
export const attemptResult = (f: Webhooks.FinishedAttempt): "delivered" | "retrying" | "dead_lettered" | "other" =>
  f.next.status === "delivered"
    ? "delivered"
    : f.next.status === "pending"
      ? "retrying"
      : f.next.status === "dead_lettered"
        ? "dead_lettered"
        : "other"

/** The kind of answer: the status class, or why there was none. */
export const attemptAnswer = (outcome: Webhooks.AttemptOutcome["_tag"], responseStatus: number | null): string => {
  switch (outcome) {
    case "Answered":
      return responseStatus === null ? "answered" : `${Math.floor(responseStatus / 100)}xx`
    case "TimedOut":
      return "timeout"
    case "ConnectionFailed":
      return "connection_failed"
    case "AddressRefused":
      return "address_refused"
  }
}

/** The worker's reports as counters. Provide it where DeliveryWorker.layer is built (the observer is optional there). */
export const deliveryObserverLayer: Layer.Layer<Webhooks.DeliveryObserver, never, Metrics> = Layer.effect(
  Webhooks.DeliveryObserver,
  Effect.gen(function* () {
    const metrics = yield* Metrics
    const attempts = yield* metrics.counter<"result" | "answer">({
      name: "frank_webhook_attempts_total",
      help: "Webhook delivery attempts whose outcome was recorded, by what became of the delivery and the kind of answer",
      labelNames: ["result", "answer"]
    })
    const uncertain = yield* metrics.counter({
      name: "frank_webhook_uncertain_total",
      help: "Deliveries turned uncertain because their lease ran out mid-request (a worker died or stalled)"
    })
    const disabled = yield* metrics.counter<"reason">({
      name: "frank_webhook_endpoints_disabled_total",
      help: "Webhook endpoints paused automatically, by reason (failing: days of dead letters and no success)",
      labelNames: ["reason"]
    })
    // Shown from the start at 0, so an alert on its increase has a series to watch.
    yield* disabled.inc({ reason: "failing" }, 0)
    return {
      // Counted per batch first: one counter update per label pair, not per attempt.
      attemptsRecorded: (finished) =>
        Effect.suspend(() => {
          const counts = new Map<string, { result: string; answer: string; n: number }>()
          for (const f of finished) {
            const result = attemptResult(f)
            const answer = attemptAnswer(f.outcome, f.attempt.responseStatus)
            const key = `${result}/${answer}`
            const entry = counts.get(key)
            if (entry === undefined) counts.set(key, { result, answer, n: 1 })
            else entry.n++
          }
          return Effect.forEach(counts.values(), (c) => attempts.inc({ result: c.result, answer: c.answer }, c.n), {
            discard: true
          })
        }),
      leasesExpired: (count) => uncertain.inc(undefined, count),
      endpointsDisabled: (endpoints) => disabled.inc({ reason: "failing" }, endpoints.length)
    }
  })
)

/** One reading serves both gauges of a scrape (prom-client collects each gauge on its own). */
const READING_TTL = Duration.seconds(1)

/** Gauges of the due backlog, read from the store at every scrape. */
export const webhookBacklogGauges: Layer.Layer<never, never, Metrics | Webhooks.DeliveryWorker> = Layer.effectDiscard(
  Effect.gen(function* () {
    const metrics = yield* Metrics
    const worker = yield* Webhooks.DeliveryWorker
    const readAt = (now: number) => worker.dueBacklog(now)
    const backlog = yield* Effect.cachedWithTTL(
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.map(readAt(now), (b) => ({ now, ...b }))),
      READING_TTL
    )
    yield* metrics.gauge({
      name: "frank_webhook_due_deliveries",
      help: "Webhook deliveries due now and not yet attempted, endpoints paused excluded (all instances on this database)",
      collect: Effect.map(backlog, (b) => b.count)
    })
    yield* metrics.gauge({
      name: "frank_webhook_oldest_due_age_seconds",
      help: "How long the oldest due webhook delivery has waited past its due time; 0 when none waits",
      collect: Effect.map(backlog, (b) =>
        b.oldestDueAt === undefined ? 0 : Math.max(0, (b.now - b.oldestDueAt) / 1000)
      )
    })
  })
)
