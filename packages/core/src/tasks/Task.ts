/**
 * A generation task (docs/contract.md §5 "tasks"): what the partner launched, what was reserved for
 * it, and how it ended. The spec leaves the record open ("not shown"); this is the engine's.
 *
 * Money is in minor units (1 ₣ = 100), times are epoch milliseconds from Effect's Clock.
 */
import { Schema } from "effect"
import type { TaskId, PartnerId } from "../EntityIds.js"
import type { Minor } from "../internal/money.js"
import type { EstimateRequest } from "../pricing/EstimateRequest.js"
import type { Family, Quality } from "../pricing/Catalog.js"

/** The states of a task. */
export const TaskStatus = Schema.Literal("queued", "running", "succeeded", "failed")
export type TaskStatus = typeof TaskStatus.Type

/** Whether a status is final: succeeded or failed. */
export const isTerminal = (status: TaskStatus): boolean => status === "succeeded" || status === "failed"

/**
 * What a stored input file is to the model. Each role is one of the estimate's counts, so the
 * price of a launch is the price of its inputs: `image` → `imageCount`, `referenceImage` →
 * `referenceImageCount`, and so on.
 */
export const InputRole = Schema.Literal("image", "referenceImage", "referenceVideo", "referenceAudio")
export type InputRole = typeof InputRole.Type

/** The estimate count each input role fills. */
export const countFieldOfRole = {
  image: "imageCount",
  referenceImage: "referenceImageCount",
  referenceVideo: "referenceVideoCount",
  referenceAudio: "referenceAudioCount"
} as const satisfies Record<InputRole, keyof EstimateRequest>

/** A stored file given to a task, with its role. */
export interface TaskInput {
  /** A stored file (result of an import) the partner owns. */
  readonly storedFileId: string
  readonly role: InputRole
}

/** Where the output of a succeeded task is. */
export interface TaskResult {
  readonly url: string
  readonly mimeType: string
  readonly sizeBytes: number
  /** The text itself, for text outputs (chat answers, transcripts, reports). */
  readonly text: string | null
}

/** Why a task failed: a machine code and a human message. */
export interface TaskFailure {
  readonly code: string
  readonly message: string
}

/** The failure code of a task whose hold lapsed before the provider reported an end. */
export const TASK_EXPIRED = "TASK_EXPIRED"

/**
 * A provider report that arrived after the task's `expiresAt`: kept for the partner and the
 * operator to see, never settled (docs/decisions.md, "Late reports never charge").
 */
export interface LateReport {
  readonly outcome: "started" | "succeeded" | "failed"
  /** Epoch ms, when the engine received it. */
  readonly receivedAt: number
  /** The cost the provider reported with a late success (null: none reported, or not a success). */
  readonly costMinor: Minor | null
  /** The code of a late failure. */
  readonly failureCode: string | null
}

/** A generation task: its model, inputs, status, cost and output. */
export interface Task {
  readonly partnerId: PartnerId
  readonly id: TaskId
  readonly status: TaskStatus
  readonly modelId: string
  readonly family: Family
  /** Resolved by pricing: the requested value or the catalog default. */
  readonly operation: string
  readonly mode: string
  readonly resolution: string | null
  readonly quality: Quality | null
  /** The estimate fields the task was launched with (input counts filled in from `inputs`). */
  readonly request: EstimateRequest
  readonly inputs: ReadonlyArray<TaskInput>
  /** Held when the task was created: the quote at the partner's tariff. */
  readonly reservedMinor: Minor
  /** The actual charge (≤ reserved), set when the task succeeds. */
  readonly costMinor: Minor | null
  readonly idempotencyKey: string | null
  readonly result: TaskResult | null
  readonly failure: TaskFailure | null
  readonly createdAt: number
  readonly startedAt: number | null
  readonly finishedAt: number | null
  /** When its hold lapses (epoch ms): unfinished then, the task fails with TASK_EXPIRED and is refunded. */
  readonly expiresAt: number
  /** The last provider report received after `expiresAt` (a late end is kept over a late start). */
  readonly lateReport: LateReport | null
}

/** Output bytes kept by the engine (sandbox results); served at `GET /v1/tasks/{id}/result`. */
export interface TaskContent {
  readonly mimeType: string
  readonly bytes: Uint8Array
}

/** The most result bytes the engine keeps per task; larger outputs belong in a blob store (a link). */
export const MAX_RESULT_CONTENT_BYTES = 4 * 1024 * 1024
