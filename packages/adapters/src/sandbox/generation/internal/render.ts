/**
 * What the sandbox "generates": a small real file per output kind, derived only from the task
 * (so rendering the same task twice gives the same bytes, and no network or model is involved).
 *
 * | output | file                                                   |
 * |--------|--------------------------------------------------------|
 * | image  | PNG, ≤ 64 px on the long side, aspect of `resolution`  |
 * | video  | AVI, uncompressed RGB, ≤ 32 px, 12 frames at 12 fps    |
 * | audio  | WAV, 1 s of a tone, 8 kHz 16-bit mono                  |
 * | text   | text/plain answer quoting the prompt                   |
 * | report | application/json verdict of a processing operation     |
 *
 * The kind follows the model's family; a few operations produce another kind than their family
 * suggests (a transcription is audio in, text out).
 */
import type { Pricing, Tasks } from "@frank/core"
import { encodeAvi } from "./avi.js"
import { encodePng } from "./png.js"
import { encodeWav } from "./wav.js"

export type OutputKind = "image" | "video" | "audio" | "text" | "report"

const byFamily: Record<Pricing.Family, OutputKind> = {
  image: "image",
  video: "video",
  audio: "audio",
  text: "text",
  processing: "report"
}
const byOperation: Readonly<Record<string, OutputKind>> = {
  transcription: "text",
  "remove-background": "image",
  upscale: "video",
  moderate: "report"
}

export const outputKindOf = (task: Pick<Tasks.Task, "family" | "operation">): OutputKind =>
  byOperation[task.operation] ?? byFamily[task.family]

/** A stable 32-bit seed from the task id: colours and tones differ per task, not per render. */
const seedOf = (id: string) => {
  let h = 2166136261
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619)
  return h >>> 0
}

/** Width and height at most `max` on the long side, keeping the aspect of `1024x1536` or `720p`-style names. */
export const frameSize = (resolution: string | null, max: number): { width: number; height: number } => {
  const wh = resolution?.match(/^(\d+)x(\d+)$/)
  const p = resolution?.match(/^(\d+)p$/)
  const [w, h] = wh ? [Number(wh[1]), Number(wh[2])] : p ? [(Number(p[1]) * 16) / 9, Number(p[1])] : [1, 1]
  if (!(w > 0 && h > 0)) return { width: max, height: max }
  const scale = max / Math.max(w, h)
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) }
}

/** A diagonal gradient between two colours of the seed, shifted by `phase` (animation). */
const gradient = (width: number, height: number, seed: number, phase = 0): Uint8Array => {
  const a = [seed & 0xff, (seed >>> 8) & 0xff, (seed >>> 16) & 0xff]
  const b = a.map((c) => 255 - c)
  const rgb = new Uint8Array(width * height * 3)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const t = (((x + y + phase) % (width + height)) / (width + height)) as number
      for (let c = 0; c < 3; c++) rgb[(y * width + x) * 3 + c] = Math.round(a[c]! * (1 - t) + b[c]! * t)
    }
  return rgb
}

const tone = (seed: number, sampleRate: number, seconds: number): Int16Array => {
  const frequency = 220 + (seed % 660)
  const n = sampleRate * seconds
  const samples = new Int16Array(n)
  const fade = sampleRate / 50 // 20 ms ramps: no clicks
  for (let i = 0; i < n; i++) {
    const envelope = Math.min(1, i / fade, (n - 1 - i) / fade)
    samples[i] = Math.round(Math.sin((2 * Math.PI * frequency * i) / sampleRate) * 12_000 * envelope)
  }
  return samples
}

const content = (mimeType: string, bytes: Uint8Array, text?: string): Tasks.TaskOutput =>
  text === undefined ? { _tag: "Content", mimeType, bytes } : { _tag: "Content", mimeType, bytes, text }

export const renderSandboxOutput = (task: Tasks.Task): Tasks.TaskOutput => {
  const seed = seedOf(task.id)
  switch (outputKindOf(task)) {
    case "image": {
      const { width, height } = frameSize(task.resolution, 64)
      return content("image/png", encodePng(width, height, gradient(width, height, seed)))
    }
    case "video": {
      const { width, height } = frameSize(task.resolution ?? "720p", 32)
      // AVI frames need even dimensions for most players.
      const w = width + (width % 2)
      const h = height + (height % 2)
      const frames = Array.from({ length: 12 }, (_, i) => gradient(w, h, seed, i * 4))
      return content("video/x-msvideo", encodeAvi(w, h, 12, frames))
    }
    case "audio":
      return content("audio/wav", encodeWav(8000, tone(seed, 8000, 1)))
    case "text": {
      const prompt = task.request.prompt ?? ""
      const text = `Sandbox ${task.operation} result of ${task.modelId} for task ${task.id}.\nPrompt: ${prompt.length > 200 ? `${prompt.slice(0, 200)}…` : prompt}\n`
      return content("text/plain; charset=utf-8", new TextEncoder().encode(text), text)
    }
    case "report": {
      const text = JSON.stringify({
        sandbox: true,
        taskId: task.id,
        modelId: task.modelId,
        operation: task.operation,
        verdict: "ok"
      })
      return content("application/json", new TextEncoder().encode(text), text)
    }
  }
}
