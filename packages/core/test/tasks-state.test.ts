import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { canonicalJson, resolveLaunch, sameLaunch } from "../src/tasks/internal/LaunchRequest.js"
import type { TaskId } from "../src/EntityIds.js"
import type { Task, TaskStatus } from "../src/tasks/Task.js"
import { holdTtlFor } from "../src/tasks/TaskSettings.js"
import {
  expiryTransition,
  isExpired,
  outcomeProblem,
  type TaskOutcome,
  type TaskOutput,
  transitionTask
} from "../src/tasks/TaskState.js"
import { testPartner } from "@frank/core/testing"

const ctx = { now: 5_000, contentUrl: "https://frank.test/v1/tasks/t1/result" }

const task = (status: TaskStatus, over: Partial<Task> = {}): Task => ({
  partnerId: testPartner("p1"),
  id: "t1" as TaskId,
  status,
  modelId: "gpt-image-1",
  family: "image",
  operation: "text-to-image",
  mode: "standard",
  resolution: "1024x1024",
  quality: "medium",
  request: { modelId: "gpt-image-1", prompt: "a cat" },
  inputs: [],
  reservedMinor: 600,
  costMinor: null,
  idempotencyKey: null,
  result: null,
  failure: null,
  createdAt: 1_000,
  startedAt: status === "queued" ? null : 2_000,
  finishedAt: null,
  expiresAt: 1_000 + 86_400_000,
  lateReport: null,
  ...over
})

const png: TaskOutput = { _tag: "Content", mimeType: "image/png", bytes: new Uint8Array([1, 2, 3]) }
const started: TaskOutcome = { _tag: "Started" }
const succeeded = (costMinor?: number): TaskOutcome =>
  costMinor === undefined ? { _tag: "Succeeded", output: png } : { _tag: "Succeeded", output: png, costMinor }
const failed: TaskOutcome = { _tag: "Failed", failure: { code: "PROVIDER_ERROR", message: "boom" } }

describe("task state machine", () => {
  it("queued → running on Started; a second Started is refused", () => {
    const t = transitionTask(task("queued"), started, ctx)
    expect(t).toMatchObject({ _tag: "Moved", settlement: "none", task: { status: "running", startedAt: 5_000 } })
    expect(transitionTask(task("running"), started, ctx)).toEqual({ _tag: "Ignored", reason: "already_running" })
  })

  it("success from queued or running confirms the cost, keeps the content and links it", () => {
    for (const from of ["queued", "running"] as const) {
      const t = transitionTask(task(from), succeeded(450), ctx)
      if (t._tag !== "Moved") throw new Error("refused")
      expect(t.settlement).toBe("confirm")
      expect(t.task).toMatchObject({
        status: "succeeded",
        costMinor: 450,
        finishedAt: 5_000,
        startedAt: from === "queued" ? 5_000 : 2_000,
        result: { url: ctx.contentUrl, mimeType: "image/png", sizeBytes: 3, text: null }
      })
      expect(t.content).toEqual({ mimeType: "image/png", bytes: new Uint8Array([1, 2, 3]) })
    }
  })

  it("the cost defaults to the reservation and never exceeds it", () => {
    const at = (outcome: TaskOutcome) => {
      const t = transitionTask(task("running"), outcome, ctx)
      return t._tag === "Moved" ? t.task.costMinor : undefined
    }
    expect(at(succeeded())).toBe(600)
    expect(at(succeeded(10_000))).toBe(600)
    expect(at(succeeded(0))).toBe(0)
  })

  it("a link output is recorded as the provider's URL, without content", () => {
    const link: TaskOutcome = {
      _tag: "Succeeded",
      output: { _tag: "Link", url: "https://cdn.example/x.mp4", mimeType: "video/mp4", sizeBytes: 99, text: "t" }
    }
    const t = transitionTask(task("running"), link, ctx)
    expect(t).toMatchObject({
      _tag: "Moved",
      content: undefined,
      task: { result: { url: "https://cdn.example/x.mp4", sizeBytes: 99, text: "t" } }
    })
  })

  it("failure from queued or running refunds and keeps the reason", () => {
    for (const from of ["queued", "running"] as const) {
      const t = transitionTask(task(from), failed, ctx)
      expect(t).toMatchObject({
        _tag: "Moved",
        settlement: "refund",
        task: {
          status: "failed",
          failure: failed._tag === "Failed" ? failed.failure : null,
          finishedAt: 5_000,
          costMinor: null
        }
      })
    }
  })

  it("terminal states absorb every report", () => {
    const done = [
      task("succeeded", { costMinor: 600, finishedAt: 3_000 }),
      task("failed", { failure: { code: "X", message: "x" }, finishedAt: 3_000 })
    ]
    for (const t of done)
      for (const outcome of [started, succeeded(), succeeded(1), failed])
        expect(transitionTask(t, outcome, ctx)).toEqual({ _tag: "Ignored", reason: "already_finished" })
  })

  it("any sequence of reports settles a task at most once, with a charge within the reservation", () => {
    const outcome = fc.oneof(
      fc.constant(started),
      fc.integer({ min: 0, max: 5_000 }).map((c) => succeeded(c)),
      fc.constant(succeeded()),
      fc.constant(failed)
    )
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 12 }), (outcomes) => {
        let current = task("queued")
        let settlements = 0
        for (const o of outcomes) {
          const t = transitionTask(current, o, ctx)
          if (t._tag === "Ignored") continue
          if (t.settlement !== "none") settlements++
          current = t.task
        }
        expect(settlements).toBeLessThanOrEqual(1)
        expect(settlements === 1).toBe(current.status === "succeeded" || current.status === "failed")
        if (current.status === "succeeded") expect(current.costMinor).toBeLessThanOrEqual(current.reservedMinor)
        // The first terminal report decides.
        const first = outcomes.find((o) => o._tag !== "Started")
        if (first !== undefined) expect(current.status).toBe(first._tag === "Succeeded" ? "succeeded" : "failed")
      })
    )
  })

  it("malformed outcomes are named, well-formed ones pass", () => {
    expect(outcomeProblem(succeeded(-1))).toContain("non-negative")
    expect(outcomeProblem(succeeded(1.5))).toContain("integer")
    expect(outcomeProblem({ _tag: "Succeeded", output: { ...png, mimeType: "" } })).toContain("MIME")
    expect(
      outcomeProblem({ _tag: "Succeeded", output: { _tag: "Link", url: "ftp://x", mimeType: "a/b", sizeBytes: 1 } })
    ).toContain("http")
    expect(
      outcomeProblem({
        _tag: "Succeeded",
        output: { _tag: "Content", mimeType: "a/b", bytes: new Uint8Array(4 * 1024 * 1024 + 1) }
      })
    ).toContain("link")
    expect(outcomeProblem({ _tag: "Failed", failure: { code: "", message: "x" } })).toContain("code")
    for (const ok of [started, succeeded(), succeeded(0), failed]) expect(outcomeProblem(ok)).toBeUndefined()
  })
})

describe("launch request", () => {
  const fileA = "0b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b"
  const fileB = "1c9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b"

  it("fills the estimate counts from the inputs' roles", () => {
    const r = resolveLaunch({
      modelId: "veo-3",
      prompt: "p",
      inputs: [
        { storedFileId: fileA.toUpperCase(), role: "referenceImage" },
        { storedFileId: fileB, role: "referenceImage" },
        { storedFileId: fileA, role: "referenceAudio" }
      ]
    })
    expect(r.problems).toEqual([])
    expect(r.estimate).toEqual({ modelId: "veo-3", prompt: "p", referenceImageCount: 2, referenceAudioCount: 1 })
    expect(r.inputs[0]!.storedFileId).toBe(fileA)
  })

  it("refuses counts that contradict the inputs, all at once", () => {
    const r = resolveLaunch({
      modelId: "veo-3",
      referenceImageCount: 3,
      imageCount: 1,
      inputs: [{ storedFileId: fileA, role: "referenceImage" }]
    })
    expect(r.problems).toEqual([
      'imageCount: 1 does not match the 0 input(s) with role "image"',
      'referenceImageCount: 3 does not match the 1 input(s) with role "referenceImage"'
    ])
    // A stated count that agrees is fine, with or without inputs.
    expect(
      resolveLaunch({
        modelId: "veo-3",
        referenceImageCount: 1,
        inputs: [{ storedFileId: fileA, role: "referenceImage" }]
      }).problems
    ).toEqual([])
    expect(resolveLaunch({ modelId: "veo-3", referenceImageCount: 0 }).problems).toEqual([])
  })

  it("a retry is the same launch whatever the key order; another prompt is not", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 2 } })).toBe(
      '{"a":{"c":2,"d":[1,{"y":2,"z":1}]},"b":1}'
    )
    const first = resolveLaunch({ modelId: "gpt-image-1", prompt: "a cat", quality: "low" })
    const stored = { request: first.estimate, inputs: first.inputs }
    expect(sameLaunch(stored, resolveLaunch({ quality: "low", prompt: "a cat", modelId: "gpt-image-1" }))).toBe(true)
    expect(sameLaunch(stored, resolveLaunch({ modelId: "gpt-image-1", prompt: "a dog", quality: "low" }))).toBe(false)
  })
})

describe("hold expiry", () => {
  const expiresAt = 1_000 + 86_400_000

  it("the sweep expires an unfinished task at expiresAt, not before, and never a finished one", () => {
    expect(expiryTransition(task("running"), expiresAt - 1)).toEqual({ _tag: "Ignored", reason: "not_due" })
    const moved = expiryTransition(task("queued"), expiresAt)
    expect(moved).toMatchObject({
      _tag: "Moved",
      settlement: "expire",
      late: false,
      task: { status: "failed", failure: { code: "TASK_EXPIRED" }, finishedAt: expiresAt, lateReport: null }
    })
    if (moved._tag === "Moved") expect(isExpired(moved.task)).toBe(true)
    expect(expiryTransition(task("succeeded", { costMinor: 1 }), expiresAt + 1)._tag).toBe("Ignored")
  })

  it("a report at or after expiresAt expires the task and is kept; later ones settle nothing", () => {
    const late = { ...ctx, now: expiresAt }
    const first = transitionTask(task("running"), succeeded(300), late)
    expect(first).toMatchObject({
      _tag: "Moved",
      settlement: "expire",
      late: true,
      task: {
        status: "failed",
        failure: { code: "TASK_EXPIRED" },
        costMinor: null,
        lateReport: { outcome: "succeeded", receivedAt: expiresAt, costMinor: 300, failureCode: null }
      }
    })
    if (first._tag !== "Moved") return
    const start = transitionTask(first.task, started, { ...ctx, now: expiresAt + 5 })
    expect(start).toMatchObject({ settlement: "none", late: true, task: { lateReport: { outcome: "succeeded" } } })
    const fail = transitionTask(first.task, failed, { ...ctx, now: expiresAt + 9 })
    expect(fail).toMatchObject({
      settlement: "none",
      task: {
        status: "failed",
        lateReport: { outcome: "failed", failureCode: "PROVIDER_ERROR", receivedAt: expiresAt + 9 }
      }
    })
    // One millisecond earlier the same report settles as usual.
    expect(transitionTask(task("running"), succeeded(300), { ...ctx, now: expiresAt - 1 })).toMatchObject({
      settlement: "confirm",
      late: false
    })
  })

  it("a provider's own TASK_EXPIRED failure in time is an ordinary failure", () => {
    const own = transitionTask(
      task("running"),
      { _tag: "Failed", failure: { code: "TASK_EXPIRED", message: "x" } },
      ctx
    )
    expect(own).toMatchObject({ settlement: "refund", late: false })
    if (own._tag === "Moved") {
      expect(isExpired(own.task)).toBe(false)
      expect(transitionTask(own.task, succeeded(1), { ...ctx, now: expiresAt + 1 })).toEqual({
        _tag: "Ignored",
        reason: "already_finished"
      })
    }
  })

  it("a model may shorten the engine's TTL, never lengthen it", () => {
    expect(holdTtlFor({ publicBaseUrl: "x" }, undefined)).toBe(86_400_000)
    expect(holdTtlFor({ publicBaseUrl: "x", holdTtlMs: 3_600_000 }, 600)).toBe(600_000)
    expect(holdTtlFor({ publicBaseUrl: "x", holdTtlMs: 3_600_000 }, 7_200)).toBe(3_600_000)
  })
})
