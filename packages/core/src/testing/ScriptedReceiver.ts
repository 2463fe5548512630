/**
 * A scripted webhook receiver: a real implementation of the WebhookTransport port for
 * simulations. Each URL answers from its script, one answer per attempt, then with the default
 * (200). It records every request that reached it, with the time on Effect's Clock, so a test can
 * assert attempt times, headers and signatures.
 */
import { Clock, Context, Effect, Layer, Ref } from "effect"
import type { AttemptOutcome, AttemptRequest } from "../webhooks/transport/WebhookTransport.js"
import { WebhookTransport } from "../webhooks/transport/WebhookTransport.js"
import { responseSnippet } from "../webhooks/transport/responseSnippet.js"
import { sendEach } from "../webhooks/transport/sendEach.js"

/**
 * An HTTP status; `timeout` (no answer in time); `crash` (the worker process dies while the
 * receiver holds the request: nothing is recorded and the lease decides); `connection-error`
 * (nothing reached the receiver).
 */
export type ScriptedAnswer =
  | number
  | "timeout"
  | "crash"
  | "connection-error"
  /** An HTTP status with a response body (the attempt keeps its first KiB). */
  | { readonly status: number; readonly body: string }

/** A request the scripted receiver got. */
export interface ReceivedRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** Epoch ms on Effect's Clock when the attempt reached the receiver. */
  readonly at: number
  readonly answer: ScriptedAnswer
}

export interface ScriptedReceiverShape {
  /** Appends answers for the next attempts to `url`. */
  readonly script: (url: string, answers: ReadonlyArray<ScriptedAnswer>) => Effect.Effect<void>
  /** Requests that reached the receiver, oldest first (connection errors never reach it). */
  readonly received: Effect.Effect<ReadonlyArray<ReceivedRequest>>
}

/** A webhook receiver that answers by script and records what it got. */
export class ScriptedReceiver extends Context.Tag("@frank/core/testing/ScriptedReceiver")<
  ScriptedReceiver,
  ScriptedReceiverShape
>() {
  /** Provides both the ScriptedReceiver (to script and inspect) and the WebhookTransport it implements. */
  static readonly layer = (defaultAnswer: ScriptedAnswer = 200): Layer.Layer<ScriptedReceiver | WebhookTransport> =>
    scriptedReceiverLayer(defaultAnswer)
}

const decoder = new TextDecoder()

export const makeScriptedReceiver = (defaultAnswer: ScriptedAnswer = 200) =>
  Effect.gen(function* () {
    const scripts = yield* Ref.make(new Map<string, ReadonlyArray<ScriptedAnswer>>())
    const log = yield* Ref.make<ReadonlyArray<ReceivedRequest>>([])

    const nextAnswer = (url: string) =>
      Ref.modify(scripts, (m): [ScriptedAnswer, Map<string, ReadonlyArray<ScriptedAnswer>>] => {
        const queue = m.get(url) ?? []
        const [head, ...rest] = queue
        if (head === undefined) return [defaultAnswer, m]
        const next = new Map(m)
        next.set(url, rest)
        return [head, next]
      })

    const send = (request: AttemptRequest): Effect.Effect<AttemptOutcome> =>
      Effect.gen(function* () {
        const answer = yield* nextAnswer(request.url)
        if (answer === "connection-error")
          return { _tag: "ConnectionFailed", message: "connection refused (scripted)" } as const
        const at = yield* Clock.currentTimeMillis
        yield* Ref.update(log, (l) => [
          ...l,
          { url: request.url, headers: request.headers, body: decoder.decode(request.body), at, answer }
        ])
        if (answer === "crash") return yield* Effect.interrupt
        if (answer === "timeout") return { _tag: "TimedOut" } as const
        if (typeof answer === "object")
          return {
            _tag: "Answered",
            status: answer.status,
            body: responseSnippet(new TextEncoder().encode(answer.body))
          } as const
        return { _tag: "Answered", status: answer } as const
      })

    const receiver: ScriptedReceiverShape = {
      script: (url, answers) =>
        Ref.update(scripts, (m) => {
          const next = new Map(m)
          next.set(url, [...(m.get(url) ?? []), ...answers])
          return next
        }),
      received: Ref.get(log)
    }
    return { receiver, transport: { send, sendBatch: sendEach(send) } }
  })

const scriptedReceiverLayer = (defaultAnswer: ScriptedAnswer = 200): Layer.Layer<ScriptedReceiver | WebhookTransport> =>
  Layer.effectContext(
    Effect.map(makeScriptedReceiver(defaultAnswer), ({ receiver, transport }) =>
      Context.make(ScriptedReceiver, receiver).pipe(Context.add(WebhookTransport, transport))
    )
  )
