/**
 * The task state machine as a pure function of (task, outcome, context):
 *
 *   queued ──Started──▶ running
 *   queued | running ──Succeeded──▶ succeeded   (settlement: confirm the actual cost)
 *   queued | running ──Failed─────▶ failed      (settlement: refund the reservation)
 *
 *   queued | running ──(now ≥ expiresAt)──▶ failed TASK_EXPIRED   (settlement: refund as expired)
 *
 * A provider may skip `Started`. Terminal states absorb every later report, and a repeated
 * `Started` changes nothing: reports arrive twice or out of order in practice (provider retries,
 * an operator's control racing the provider), and a refused transition is what guarantees that
 * a task settles exactly once.
 *
 * Expiry is decided by the clock, not by who comes first: a report arriving at or after
 * `expiresAt` expires the task exactly as the sweep would (and is kept as its `lateReport`), so a
 * confirm racing the sweep ends the same way whichever takes the task's lock first.
 */
import { iso } from "../isoTime.js"
import type { Minor } from "../internal/money.js"
import type { LateReport, Task, TaskContent, TaskFailure } from "./Task.js"
import { isTerminal, MAX_RESULT_CONTENT_BYTES, TASK_EXPIRED } from "./Task.js"

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

/** What a provider reports of a task: started, succeeded with output, or failed. */
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

/** What a transition does to the hold: nothing, charge it, give it back, or give it back as expired. */
export type Settlement = "none" | "confirm" | "refund" | "expire"

type IgnoredReason = "already_running" | "already_finished" | "not_due"

export type TaskTransition =
  | {
      readonly _tag: "Moved"
      readonly task: Task
      readonly content: TaskContent | undefined
      readonly settlement: Settlement
      /** The report came after `expiresAt`: it settles nothing and is kept as `lateReport`. */
      readonly late: boolean
    }
  | { readonly _tag: "Ignored"; readonly reason: IgnoredReason }

const ignored = (reason: IgnoredReason): TaskTransition => ({ _tag: "Ignored", reason })

/**
 * Whether the task ended because its hold lapsed (then later reports are late). A provider's own
 * failure can never look like one: it ends before `expiresAt`, or it is itself late.
 */
export const isExpired = (task: Task): boolean =>
  task.status === "failed" &&
  task.failure?.code === TASK_EXPIRED &&
  task.finishedAt !== null &&
  task.finishedAt >= task.expiresAt

/** The name of a reported outcome (metric labels, `lateReport.outcome`). */
export const outcomeName = (outcome: TaskOutcome): LateReport["outcome"] =>
  outcome._tag === "Started" ? "started" : outcome._tag === "Succeeded" ? "succeeded" : "failed"

const lateReportOf = (outcome: TaskOutcome, now: number): LateReport => ({
  outcome: outcomeName(outcome),
  receivedAt: now,
  costMinor: outcome._tag === "Succeeded" ? (outcome.costMinor ?? null) : null,
  failureCode: outcome._tag === "Failed" ? outcome.failure.code : null
})

/** The newest late report is kept, except that a late start never hides a late end. */
const keepLate = (recorded: LateReport | null, incoming: LateReport): LateReport =>
  recorded !== null && recorded.outcome !== "started" && incoming.outcome === "started" ? recorded : incoming

/** The task failed at `now` because its hold lapsed. */
const expiredAt = (task: Task, now: number): Task => ({
  ...task,
  status: "failed",
  failure: {
    code: TASK_EXPIRED,
    message: `the task did not finish before its reservation expired at ${iso(task.expiresAt)}`
  },
  finishedAt: now
})

/** What the expiry sweep does: an unfinished task at or past `expiresAt` fails and its hold goes back. */
export const expiryTransition = (task: Task, now: number): TaskTransition => {
  if (isTerminal(task.status)) return ignored("already_finished")
  if (now < task.expiresAt) return ignored("not_due")
  return { _tag: "Moved", task: expiredAt(task, now), content: undefined, settlement: "expire", late: false }
}

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

/** A report after `expiresAt`: kept on the task; the task expires now unless it already did. */
const lateTransition = (task: Task, outcome: TaskOutcome, now: number): TaskTransition => {
  const report = lateReportOf(outcome, now)
  if (isExpired(task))
    return {
      _tag: "Moved",
      task: { ...task, lateReport: keepLate(task.lateReport, report) },
      content: undefined,
      settlement: "none",
      late: true
    }
  return {
    _tag: "Moved",
    task: { ...expiredAt(task, now), lateReport: report },
    content: undefined,
    settlement: "expire",
    late: true
  }
}

export const transitionTask = (task: Task, outcome: TaskOutcome, ctx: TransitionContext): TaskTransition => {
  if (isExpired(task) || (!isTerminal(task.status) && ctx.now >= task.expiresAt))
    return lateTransition(task, outcome, ctx.now)
  if (isTerminal(task.status)) return ignored("already_finished")
  switch (outcome._tag) {
    case "Started":
      if (task.status === "running") return ignored("already_running")
      return {
        _tag: "Moved",
        task: { ...task, status: "running", startedAt: ctx.now },
        content: undefined,
        settlement: "none",
        late: false
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
        settlement: "confirm",
        late: false
      }
    }
    case "Failed":
      return {
        _tag: "Moved",
        task: { ...task, status: "failed", failure: outcome.failure, finishedAt: ctx.now },
        content: undefined,
        settlement: "refund",
        late: false
      }
  }
}
