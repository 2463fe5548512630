/**
 * The sandbox generation provider under TestClock (running at once, succeeding after the delay
 * with a real file, or waiting for the admin controls), and the files it renders, checked byte
 * by byte against their formats.
 */
import { inflateSync } from "node:zlib"
import { crc32 } from "../src/sandbox/generation/internal/crc32.js"
import { frameSize, outputKindOf, renderSandboxOutput } from "../src/sandbox/generation/internal/render.js"
import { SandboxGeneration } from "../src/index.js"
import { describe, expect, it, layer } from "@effect/vitest"
import { Ids, Ledger, Pricing, Tariffs, Tasks } from "@frank/core"
import {
  MemoryLedgerStore,
  MemoryStoredFileLookup,
  MemoryTaskStore,
  OutboxOnMemory,
  testPartner
} from "@frank/core/testing"
import { type Duration, Effect, Layer, TestClock } from "effect"

const engine = (autoCompleteAfter: Duration.DurationInput | undefined) =>
  Tasks.Tasks.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        MemoryTaskStore,
        MemoryStoredFileLookup,
        SandboxGeneration.layerWith({ autoCompleteAfter }),
        Tasks.TaskSettings.layer({ publicBaseUrl: "https://frank.test" }),
        Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig),
        Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog)
      )
    ),
    Layer.provideMerge(Ledger.Ledger.layer),
    Layer.provideMerge(OutboxOnMemory),
    Layer.provideMerge(Layer.mergeAll(MemoryLedgerStore, Ids.Ids.layer))
  )

const funded = Effect.gen(function* () {
  const partnerId = testPartner(`p_${crypto.randomUUID()}`)
  yield* (yield* Ledger.Ledger).credit(partnerId, { kind: "bonus", amountMinor: 500_000 })
  return { partnerId, tasks: yield* Tasks.Tasks, ledger: yield* Ledger.Ledger }
})

/** Lets the provider's fibers run what is due at the current instant. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

layer(engine("5 seconds"))("sandbox provider with auto-completion", (it) => {
  it.effect("running at once, succeeded with a PNG after the delay, charged the reservation", () =>
    Effect.gen(function* () {
      const { partnerId, tasks, ledger } = yield* funded
      const { task } = yield* tasks.launch(partnerId, {
        modelId: "gpt-image-1",
        prompt: "a red fox",
        resolution: "1536x1024"
      })
      yield* settle
      expect((yield* tasks.get(partnerId, task.id)).status).toBe("running")
      yield* TestClock.adjust("4999 millis")
      yield* settle
      expect((yield* tasks.get(partnerId, task.id)).status).toBe("running")
      yield* TestClock.adjust("1 millis")
      yield* settle
      const done = yield* tasks.get(partnerId, task.id)
      expect(done).toMatchObject({
        status: "succeeded",
        costMinor: task.reservedMinor,
        result: { url: `https://frank.test/v1/tasks/${task.id}/result`, mimeType: "image/png" }
      })
      const content = yield* tasks.result(partnerId, task.id)
      expect([...content.bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE)
      expect((yield* ledger.hold(partnerId, task.id))?.status).toBe("confirmed")
    })
  )

  it.effect("an admin control before the delay wins; the later auto-completion is refused", () =>
    Effect.gen(function* () {
      const { partnerId, tasks, ledger } = yield* funded
      const sandbox = yield* SandboxGeneration.SandboxGeneration
      const { task } = yield* tasks.launch(partnerId, { modelId: "eleven-v3-tts", prompt: "hello there" })
      yield* settle
      const failed = yield* tasks.report(partnerId, task.id, sandbox.failed(task, { code: "VOICE_UNAVAILABLE" }))
      expect(failed.task).toMatchObject({ status: "failed", failure: { code: "VOICE_UNAVAILABLE" } })
      yield* TestClock.adjust("10 seconds")
      yield* settle
      expect((yield* tasks.get(partnerId, task.id)).status).toBe("failed")
      expect((yield* ledger.hold(partnerId, task.id))?.status).toBe("refunded")
    })
  )
})

layer(engine(undefined))("sandbox provider without auto-completion", (it) => {
  it.effect("tasks wait for the admin controls; succeed renders the family's file at the given cost", () =>
    Effect.gen(function* () {
      const { partnerId, tasks, ledger } = yield* funded
      const sandbox = yield* SandboxGeneration.SandboxGeneration
      expect(sandbox.autoCompleteAfter).toBeUndefined()
      const { task } = yield* tasks.launch(partnerId, { modelId: "kling-2.1-master", prompt: "waves", duration: 5 })
      yield* TestClock.adjust("1 hour")
      yield* settle
      const running = yield* tasks.get(partnerId, task.id)
      expect(running.status).toBe("running")
      const done = yield* tasks.report(partnerId, task.id, sandbox.succeeded(running, 100))
      expect(done.task).toMatchObject({ status: "succeeded", costMinor: 100, result: { mimeType: "video/x-msvideo" } })
      expect((yield* ledger.balance(partnerId)).used).toBe(1)
    })
  )
})

const task = (over: Partial<Tasks.Task>): Tasks.Task => ({
  partnerId: testPartner("p"),
  id: Ids.TaskId.make("0b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b"),
  status: "running",
  modelId: "m",
  family: "image",
  operation: "text-to-image",
  mode: "standard",
  resolution: null,
  quality: null,
  request: { modelId: "m", prompt: "a prompt" },
  inputs: [],
  reservedMinor: 100,
  costMinor: null,
  idempotencyKey: null,
  result: null,
  failure: null,
  createdAt: 0,
  startedAt: 0,
  finishedAt: null,
  expiresAt: 1_000 + 86_400_000,
  lateReport: null,
  ...over
})

const bytesOf = (t: Tasks.Task) => {
  const out = renderSandboxOutput(t)
  if (out._tag !== "Content") throw new Error("expected content")
  return out
}

describe("sandbox outputs", () => {
  it("picks the output by family, with operation exceptions", () => {
    expect(outputKindOf({ family: "image", operation: "text-to-image" })).toBe("image")
    expect(outputKindOf({ family: "video", operation: "text-to-video" })).toBe("video")
    expect(outputKindOf({ family: "audio", operation: "text-to-speech" })).toBe("audio")
    expect(outputKindOf({ family: "audio", operation: "transcription" })).toBe("text")
    expect(outputKindOf({ family: "text", operation: "chat" })).toBe("text")
    expect(outputKindOf({ family: "processing", operation: "remove-background" })).toBe("image")
    expect(outputKindOf({ family: "processing", operation: "upscale" })).toBe("video")
    expect(outputKindOf({ family: "processing", operation: "moderate" })).toBe("report")
  })

  it("keeps the aspect ratio of the resolution within the size bound", () => {
    expect(frameSize("1024x1536", 64)).toEqual({ width: 43, height: 64 })
    expect(frameSize("720p", 32)).toEqual({ width: 32, height: 18 })
    expect(frameSize(null, 64)).toEqual({ width: 64, height: 64 })
    expect(frameSize("weird", 64)).toEqual({ width: 64, height: 64 })
  })

  it("renders a valid PNG: signature, IHDR size, chunk CRCs, and pixel data of the right length", () => {
    const { mimeType, bytes } = bytesOf(task({ resolution: "1536x1024" }))
    expect(mimeType).toBe("image/png")
    expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const chunks: Array<{ type: string; data: Uint8Array }> = []
    for (let at = 8; at < bytes.length; ) {
      const length = view.getUint32(at)
      const type = new TextDecoder().decode(bytes.subarray(at + 4, at + 8))
      const data = bytes.subarray(at + 8, at + 8 + length)
      expect(view.getUint32(at + 8 + length)).toBe(crc32(bytes.subarray(at + 4, at + 8 + length)))
      chunks.push({ type, data })
      at += 12 + length
    }
    expect(chunks.map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"])
    const ihdr = new DataView(chunks[0]!.data.buffer, chunks[0]!.data.byteOffset)
    expect([ihdr.getUint32(0), ihdr.getUint32(4)]).toEqual([64, 43])
    expect(inflateSync(chunks[1]!.data).length).toBe(43 * (1 + 64 * 3))
    // Deterministic per task, different between tasks.
    expect(bytesOf(task({ resolution: "1536x1024" })).bytes).toEqual(bytes)
    expect(
      bytesOf(task({ id: Ids.TaskId.make("1b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b"), resolution: "1536x1024" })).bytes
    ).not.toEqual(bytes)
  })

  it("renders a one-second 8 kHz 16-bit mono WAV", () => {
    const { mimeType, bytes } = bytesOf(task({ family: "audio", operation: "text-to-speech" }))
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const ascii = (at: number) => new TextDecoder().decode(bytes.subarray(at, at + 4))
    expect(mimeType).toBe("audio/wav")
    expect([ascii(0), ascii(8), ascii(12), ascii(36)]).toEqual(["RIFF", "WAVE", "fmt ", "data"])
    expect(v.getUint32(4, true)).toBe(bytes.length - 8)
    expect([v.getUint16(20, true), v.getUint16(22, true), v.getUint32(24, true), v.getUint16(34, true)]).toEqual([
      1, 1, 8000, 16
    ])
    expect(v.getUint32(40, true)).toBe(16_000)
    // A tone, not silence.
    expect(
      Math.max(...Array.from({ length: 800 }, (_, i) => Math.abs(v.getInt16(44 + (1000 + i) * 2, true))))
    ).toBeGreaterThan(10_000)
  })

  it("renders an AVI of 12 uncompressed frames at 12 fps", () => {
    const { mimeType, bytes } = bytesOf(task({ family: "video", operation: "text-to-video", resolution: "1080p" }))
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const ascii = (at: number) => new TextDecoder().decode(bytes.subarray(at, at + 4))
    expect(mimeType).toBe("video/x-msvideo")
    expect([ascii(0), ascii(8), ascii(12), ascii(20), ascii(24)]).toEqual(["RIFF", "AVI ", "LIST", "hdrl", "avih"])
    expect(v.getUint32(4, true)).toBe(bytes.length - 8)
    // avih: µs per frame, total frames, width, height.
    expect([v.getUint32(32, true), v.getUint32(48, true), v.getUint32(64, true), v.getUint32(68, true)]).toEqual([
      83_333, 12, 32, 18
    ])
    const text = new TextDecoder("latin1").decode(bytes)
    expect(text.split("00db").length - 1).toBe(24) // 12 frames + 12 index entries
    expect(text).toContain("movi")
    expect(text).toContain("idx1")
  })

  it("answers text and report tasks with their text", () => {
    const chat = bytesOf(
      task({ family: "text", operation: "chat", request: { modelId: "m", prompt: "Why is the sky blue?" } })
    )
    expect(chat.mimeType).toBe("text/plain; charset=utf-8")
    expect(chat.text).toContain("Why is the sky blue?")
    expect(new TextDecoder().decode(chat.bytes)).toBe(chat.text)
    const report = bytesOf(task({ family: "processing", operation: "moderate" }))
    expect(JSON.parse(report.text!)).toMatchObject({ sandbox: true, operation: "moderate", verdict: "ok" })
  })
})
