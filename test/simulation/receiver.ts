/**
 * The simulated receivers: one WebhookTransport for every endpoint URL. Each URL has a mood the
 * campaign changes; the answer to an attempt is a hash of (seed, url, event id, attempt number)
 * under that mood, so it does not depend on the order in which a store hands out deliveries, and
 * the memory and SQL runs of one seed see the same answers.
 */
import { Webhooks } from "@frank/core"
import { Clock, Context, Effect, Layer } from "effect"
import { passTo } from "./clock.js"
import { hashOf } from "./prng.js"

export type Mood = "healthy" | "flaky" | "down" | "crashing"
/** `slow`: a 200 after 1-9 s (below the 10 s timeout), the campaign's clock moving meanwhile. */
export type Answer = number | "timeout" | "connection-error" | "crash" | "slow"

export interface Attempt {
  readonly url: string
  readonly eventId: string
  readonly answer: Answer
  readonly at: number
}

export interface ReceiversShape {
  readonly setMood: (url: string, mood: Mood) => void
  /** Attempts that reached a receiver, oldest first (connection errors never reach one). */
  readonly attempts: Array<Attempt>
  /** Faults injected so far, by kind. */
  readonly faults: Record<string, number>
}

export class Receivers extends Context.Tag("test/simulation/Receivers")<Receivers, ReceiversShape>() {}

const answerFor = (mood: Mood, x: number): Answer => {
  switch (mood) {
    case "healthy":
      return 200
    case "down":
      return x < 0.7 ? 503 : "connection-error"
    case "crashing":
      return x < 0.5 ? "crash" : 200
    case "flaky":
      if (x < 0.3) return 503
      if (x < 0.4) return 500
      if (x < 0.5) return "timeout"
      if (x < 0.58) return "connection-error"
      if (x < 0.62) return "crash"
      if (x < 0.66) return 302
      if (x < 0.72) return "slow"
      return 200
  }
}

export const ReceiversLive = (seed: number): Layer.Layer<Receivers | Webhooks.WebhookTransport> =>
  Layer.sync(Receivers, () => {
    const moods = new Map<string, Mood>()
    const counts = new Map<string, number>()
    const attempts: Array<Attempt> = []
    const faults: Record<string, number> = {}
    const shape: ReceiversShape & { decide: (r: Webhooks.AttemptRequest) => Answer } = {
      setMood: (url, mood) => void moods.set(url, mood),
      attempts,
      faults,
      decide: (r) => {
        const eventId = r.headers["X-Service-Event-Id"] ?? ""
        const k = `${r.url} ${eventId}`
        const n = (counts.get(k) ?? 0) + 1
        counts.set(k, n)
        return answerFor(moods.get(r.url) ?? "healthy", hashOf(seed, r.url, eventId, n))
      }
    }
    return shape
  }).pipe(
    Layer.flatMap((ctx) => {
      const receivers = Context.get(ctx, Receivers) as ReceiversShape & {
        decide: (r: Webhooks.AttemptRequest) => Answer
      }
      const send = (r: Webhooks.AttemptRequest): Effect.Effect<Webhooks.AttemptOutcome> =>
        Effect.gen(function* () {
          const answer = receivers.decide(r)
          const kind = typeof answer === "number" ? (answer < 300 ? "ok" : `http-${answer}`) : answer
          receivers.faults[kind] = (receivers.faults[kind] ?? 0) + 1
          if (answer === "connection-error")
            return { _tag: "ConnectionFailed", message: "refused (simulated)" } as const
          const at = yield* Clock.currentTimeMillis
          receivers.attempts.push({ url: r.url, eventId: r.headers["X-Service-Event-Id"] ?? "", answer, at })
          // The receiver took the request, then the worker died before the answer came back.
          if (answer === "crash") return yield* Effect.interrupt
          if (answer === "timeout") return { _tag: "TimedOut" } as const
          if (answer === "slow") {
            // The worker waits while the receiver works: time passes on the campaign's clock.
            yield* passTo(at + 1_000 + (r.body.length % 9) * 1_000)
            return { _tag: "Answered", status: 200 } as const
          }
          return { _tag: "Answered", status: answer } as const
        })
      return Layer.succeedContext(
        Context.add(ctx, Webhooks.WebhookTransport, { send, sendBatch: Webhooks.sendEach(send) })
      )
    })
  )

/** What a receiver counts as taken: a 2xx, or a request it processed before the worker died. */
export const acknowledged = (a: Attempt): boolean =>
  a.answer === "crash" || a.answer === "slow" || (typeof a.answer === "number" && a.answer >= 200 && a.answer < 300)
