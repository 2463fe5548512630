/**
 * The task state machine as a pure function of (task, outcome, context):
 *
 *   queued ──Started──▶ running
 *   queued | running ──Succeeded──▶ succeeded   (settlement: confirm the actual cost)
 *   queued | running ──Failed─────▶ failed      (settlement: refund the reservation)
 *
 * A provider may skip `Started`. Terminal states absorb every later report, and a repeated
 * `Started` changes nothing: reports arrive twice or out of order in practice (provider retries,
 * an operator's control racing the provider), and a refused transition is what guarantees that
 * a task settles exactly once.
 */
import type { Minor } from "../Money.js"
import type { Task, TaskContent, TaskFailure } from "./Task.js"
import { MAX_RESULT_CONTENT_BYTES } from "./Task.js"

/** What a provider produced: bytes the engine keeps, or a link to where the provider keeps them. */
export type TaskOutput =
  | {
      readonly _tag: "Content"
      readonly mimeType: string
      readonly bytes: Uint8Array
      readonly text?: string | undefined
    }
  | {
      readonly _tag: "Link"
      readonly url: string
      readonly mimeType: string
      readonly sizeBytes: number
      readonly text?: string | undefined
    }

export type TaskOutcome =
  | { readonly _tag: "Started" }
  | {
      readonly _tag: "Succeeded"
      readonly output: TaskOutput
      /** The actual cost; omitted: the reserved amount. More than reserved is charged as reserved. */
      readonly costMinor?: Minor | undefined
    }
  | { readonly _tag: "Failed"; readonly failure: TaskFailure }

export interface TransitionContext {
  readonly now: number
  /** Where the engine serves kept content (`…/v1/tasks/{id}/result`). */
  readonly contentUrl: string
}

export type Settlement = "none" | "confirm" | "refund"

export type TaskTransition =
  | {
      readonly _tag: "Moved"
      readonly task: Task
      readonly content: TaskContent | undefined
      readonly settlement: Settlement
    }
  | { readonly _tag: "Ignored"; readonly reason: "already_running" | "already_finished" }

const ignored = (reason: "already_running" | "already_finished"): TaskTransition => ({ _tag: "Ignored", reason })

/** Why an outcome cannot be recorded at all (a provider bug), or undefined when it is well-formed. */
export const outcomeProblem = (outcome: TaskOutcome): string | undefined => {
  switch (outcome._tag) {
    case "Started":
      return undefined
    case "Failed":
      return outcome.failure.code.length === 0 ? "a failure needs a code" : undefined
    case "Succeeded": {
      const cost = outcome.costMinor
      if (cost !== undefined && (!Number.isSafeInteger(cost) || cost < 0))
        return `cost must be a non-negative integer of minor units, got ${cost}`
      const out = outcome.output
      if (out.mimeType.length === 0) return "an output needs a MIME type"
      if (out._tag === "Content" && out.bytes.byteLength > MAX_RESULT_CONTENT_BYTES)
        return `content of ${out.bytes.byteLength} bytes exceeds ${MAX_RESULT_CONTENT_BYTES}; report a link instead`
      if (out._tag === "Link" && !/^https?:\/\//.test(out.url)) return "a result link must be an http(s) URL"
      return undefined
    }
  }
}

export const transitionTask = (task: Task, outcome: TaskOutcome, ctx: TransitionContext): TaskTransition => {
  if (task.status === "succeeded" || task.status === "failed") return ignored("already_finished")
  switch (outcome._tag) {
    case "Started":
      if (task.status === "running") return ignored("already_running")
      return {
        _tag: "Moved",
        task: { ...task, status: "running", startedAt: ctx.now },
        content: undefined,
        settlement: "none"
      }
    case "Succeeded": {
      const out = outcome.output
      const costMinor = Math.min(outcome.costMinor ?? task.reservedMinor, task.reservedMinor)
      const result =
        out._tag === "Content"
          ? { url: ctx.contentUrl, mimeType: out.mimeType, sizeBytes: out.bytes.byteLength, text: out.text ?? null }
          : { url: out.url, mimeType: out.mimeType, sizeBytes: out.sizeBytes, text: out.text ?? null }
      return {
        _tag: "Moved",
        task: {
          ...task,
          status: "succeeded",
          costMinor,
          result,
          startedAt: task.startedAt ?? ctx.now,
          finishedAt: ctx.now
        },
        content: out._tag === "Content" ? { mimeType: out.mimeType, bytes: out.bytes } : undefined,
        settlement: "confirm"
      }
    }
    case "Failed":
      return {
        _tag: "Moved",
        task: { ...task, status: "failed", failure: outcome.failure, finishedAt: ctx.now },
        content: undefined,
        settlement: "refund"
      }
  }
}
