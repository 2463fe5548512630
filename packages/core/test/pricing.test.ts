/**
 * Estimates against the bundled sample catalog: every input has its effect, every rejection names
 * the field and the allowed values. Expected totals are worked out by hand from the catalog prices
 * quoted in the comments (₣; multipliers as factors).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { EstimateRequest } from "../src/pricing/EstimateRequest.js"
import { estimate } from "../src/pricing/internal/estimate.js"
import { sampleCatalog } from "../src/pricing/sampleCatalog.js"
import { countPromptTokens } from "../src/pricing/tokens.js"

const quote = (req: EstimateRequest, discount = 0) => {
  const r = estimate(sampleCatalog, req, discount)
  if (Either.isLeft(r)) throw new Error(`rejected: ${r.left.messages.join("; ")}`)
  return r.right
}
const rejected = (req: EstimateRequest) => {
  const r = estimate(sampleCatalog, req, 0)
  if (Either.isRight(r)) throw new Error("expected a rejection")
  return r.left
}

const tokens1000 = "hello" + " hello".repeat(999) // 1 000 o200k tokens
const tokens1234 = "hello" + " hello".repeat(1233) // 1 234 o200k tokens
const voiced1005 = "<<<voice_1>>>" + " hello".repeat(1000) // 1 005 o200k tokens

it("the token counts the table relies on", () => {
  expect(
    [tokens1000, tokens1234, voiced1005, "Hello there", "<<<voice_1>>> Hello there"].map(countPromptTokens)
  ).toEqual([1000, 1234, 1005, 2, 7])
  // Special-token text is ordinary text in a prompt, never an error.
  expect(countPromptTokens("Say <|endoftext|> now")).toBe(9)
})

describe("estimate: every input has an effect", () => {
  // [name, request, discount %, expected total ₣]
  const cases: ReadonlyArray<readonly [string, EstimateRequest, number, number]> = [
    // kling-2.1-master text-to-video: 2.80/s, 5..10 s (default 5), std ×1 | pro ×1.75, 720p ×1 | 1080p ×1.5
    ["defaults: operation, mode, resolution, 5 s", { modelId: "kling-2.1-master", prompt: "a cat" }, 0, 14],
    ["duration 7 s", { modelId: "kling-2.1-master", prompt: "a cat", duration: 7 }, 0, 19.6],
    ["duration at the maximum, 10 s", { modelId: "kling-2.1-master", prompt: "a cat", duration: 10 }, 0, 28],
    ["mode pro ×1.75", { modelId: "kling-2.1-master", prompt: "a cat", mode: "pro" }, 0, 24.5],
    ["resolution 1080p ×1.5", { modelId: "kling-2.1-master", prompt: "a cat", resolution: "1080p" }, 0, 21],
    // 10 × 2.80 × 1.75 × 1.5 = 73.50; −10 % = 66.15
    [
      "mode, resolution, duration and a 10 % discount",
      { modelId: "kling-2.1-master", prompt: "a cat", duration: 10, mode: "pro", resolution: "1080p" },
      10,
      66.15
    ],
    // image-to-video: + 0.50 per input image
    [
      "operation image-to-video with imageCount 2",
      { modelId: "kling-2.1-master", operation: "image-to-video", imageCount: 2 },
      0,
      15
    ],
    // veo-3: 4.00/s, 4..8 s (default 8) = 32; fast ×1 | standard ×2; 1080p ×1.25; references 1 / 5 / 2 each; voice 3
    ["referenceImageCount 3", { modelId: "veo-3", prompt: "p", referenceImageCount: 3 }, 0, 35],
    ["referenceVideoCount 1", { modelId: "veo-3", prompt: "p", referenceVideoCount: 1 }, 0, 37],
    ["referenceAudioCount 2", { modelId: "veo-3", prompt: "p", referenceAudioCount: 2 }, 0, 36],
    [
      "surcharges are not multiplied by mode or resolution",
      { modelId: "veo-3", prompt: "p", mode: "standard", resolution: "1080p", duration: 4, referenceImageCount: 1 },
      0,
      41
    ],
    [
      "voiceCount 2 with <<<voice_N>>> markup",
      { modelId: "veo-3", prompt: "<<<voice_1>>> Hi <<<voice_2>>> Yo", voiceCount: 2 },
      0,
      38
    ],
    ["voiceCount without markup costs nothing", { modelId: "veo-3", prompt: "voice_1 says hi", voiceCount: 2 }, 0, 32],
    [
      "malformed markup is not markup",
      { modelId: "veo-3", prompt: "<<<voice_>>> <<voice_1>> <<<voice_x>>>", voiceCount: 2 },
      0,
      32
    ],
    [
      "markup without voiceCount counts the distinct voices named",
      { modelId: "veo-3", prompt: "<<<voice_1>>> a <<<voice_1>>> b <<<voice_3>>> c" },
      0,
      38
    ],
    ["voiceCount 0 with markup adds nothing", { modelId: "veo-3", prompt: "<<<voice_1>>> a", voiceCount: 0 }, 0, 32],
    // gpt-image-1: 6.00 per image; quality low ×0.25 | medium ×1 (default) | high ×4; 1024x1536 ×1.5; n multiplies; reference image 1.00
    ["image defaults (quality medium)", { modelId: "gpt-image-1", prompt: "p" }, 0, 6],
    ["quality low ×0.25", { modelId: "gpt-image-1", prompt: "p", quality: "low" }, 0, 1.5],
    ["quality medium ×1", { modelId: "gpt-image-1", prompt: "p", quality: "medium" }, 0, 6],
    ["quality high ×4 (one model only)", { modelId: "gpt-image-1", prompt: "p", quality: "high" }, 0, 24],
    ["resolution 1024x1536 ×1.5", { modelId: "gpt-image-1", prompt: "p", resolution: "1024x1536" }, 0, 9],
    ["imageOutputCount 4 multiplies", { modelId: "gpt-image-1", prompt: "p", imageOutputCount: 4 }, 0, 24],
    // 6 × 3 outputs + 2 × 1.00 references sent once = 20
    [
      "n multiplies the output, not the per-request references",
      { modelId: "gpt-image-1", prompt: "p", imageOutputCount: 3, referenceImageCount: 2 },
      0,
      20
    ],
    // flux-kontext-pro: 4.00; turbo ×0.75; low ×0.6; input images 0.20 each (max 4)
    ["second model with quality low", { modelId: "flux-kontext-pro", prompt: "p", quality: "low" }, 0, 2.4],
    ["mode turbo ×0.75", { modelId: "flux-kontext-pro", prompt: "p", mode: "turbo" }, 0, 3],
    [
      "imageCount 3 and imageOutputCount 2",
      { modelId: "flux-kontext-pro", prompt: "p", imageCount: 3, imageOutputCount: 2 },
      0,
      8.6
    ],
    [
      "turbo × low × 9 outputs",
      { modelId: "flux-kontext-pro", prompt: "p", mode: "turbo", quality: "low", imageOutputCount: 9 },
      0,
      16.2
    ],
    // eleven-v3-tts: 30.00 per 1K tokens, at least 50 tokens; expressive ×1.5; voice 2.00
    ["token minimum: 2 tokens billed as 50", { modelId: "eleven-v3-tts", prompt: "Hello there" }, 0, 1.5],
    [
      "expressive with one voice by markup",
      { modelId: "eleven-v3-tts", prompt: "<<<voice_1>>> Hello there", mode: "expressive" },
      0,
      4.25
    ],
    // 1 005 × 30 / 1000 = 30.15; × 1.5 = 45.225; + 3 voices × 2 = 51.225 → 51.23; −10 % = 46.1025 → 46.11
    [
      "tokens, mode, voiceCount 3 and a discount, rounded once",
      { modelId: "eleven-v3-tts", prompt: voiced1005, mode: "expressive", voiceCount: 3 },
      10,
      46.11
    ],
    // gpt-5-mini: 0.20 per 1K tokens; reasoning ×3
    ["1 000 prompt tokens", { modelId: "gpt-5-mini", prompt: tokens1000 }, 0, 0.2],
    ["mode reasoning ×3", { modelId: "gpt-5-mini", prompt: tokens1000, mode: "reasoning" }, 0, 0.6],
    // 1 234 × 0.20 / 1000 = 0.2468 → 0.25
    ["a fraction of a kopeck rounds up", { modelId: "gpt-5-mini", prompt: tokens1234 }, 0, 0.25],
    // 0.2468 × 0.85 = 0.20978 → 0.21 (rounding the base first would give 0.22)
    ["the discount applies before the only rounding", { modelId: "gpt-5-mini", prompt: tokens1234 }, 15, 0.21],
    // 2 × 0.20 / 1000 = 0.0004 → 0.01
    ["tiny token amounts round up to 0.01", { modelId: "gpt-5-mini", prompt: "Hello there" }, 0, 0.01],
    // claude-sonnet-4: 1.20 per 1K tokens; extended-thinking ×2.5; input images 0.30 each
    ["chat with imageCount 2", { modelId: "claude-sonnet-4", prompt: tokens1000, imageCount: 2 }, 0, 1.8],
    ["chat extended-thinking", { modelId: "claude-sonnet-4", prompt: tokens1000, mode: "extended-thinking" }, 0, 3],
    // whisper-large-v3: 0.60 per started minute; diarize ×1.5
    ["duration 61 s is two started minutes", { modelId: "whisper-large-v3", duration: 61 }, 0, 1.2],
    ["duration 1 s is one started minute", { modelId: "whisper-large-v3", duration: 1 }, 0, 0.6],
    ["mode diarize", { modelId: "whisper-large-v3", duration: 60, mode: "diarize" }, 0, 0.9],
    // topaz-video-upscale: 0.50/s, default 10 s; 4k ×3; enhanced ×1.6
    ["upscale defaults", { modelId: "topaz-video-upscale" }, 0, 5],
    ["upscale 4k enhanced", { modelId: "topaz-video-upscale", resolution: "4k", mode: "enhanced" }, 0, 24],
    ["upscale 300 s 4k", { modelId: "topaz-video-upscale", resolution: "4k", duration: 300 }, 0, 450],
    // background-removal: 0.80 per image; precise ×2; its one input image is free
    ["background removal precise", { modelId: "background-removal", mode: "precise" }, 0, 1.6],
    ["a free input image", { modelId: "background-removal", imageCount: 1 }, 0, 0.8],
    // safety-check: 0.05 per request; strict ×2; input images 0.01 each
    ["per-request pricing", { modelId: "safety-check" }, 0, 0.05],
    ["strict with 10 images", { modelId: "safety-check", mode: "strict", imageCount: 10 }, 0, 0.2],
    // tariff discounts on kling defaults (14.00)
    ["pro tariff 5 %", { modelId: "kling-2.1-master", prompt: "a cat" }, 5, 13.3],
    ["ultra tariff 15 %", { modelId: "kling-2.1-master", prompt: "a cat" }, 15, 11.9],
    ["100 % discount", { modelId: "kling-2.1-master", prompt: "a cat" }, 100, 0]
  ]
  for (const [name, req, discount, total] of cases)
    it(name, () => {
      const q = quote(req, discount)
      expect(q.totalFranks).toBe(total)
      expect(q.discountPercent).toBe(discount)
      expect(q.unitOfAccount).toBe("Франки")
      expect(q.breakdown.at(-1)?.subtotalFranks).toBe(total)
    })

  it("reports units, the breakdown and base − discount = total", () => {
    const q = quote(
      { modelId: "kling-2.1-master", prompt: "a cat", duration: 10, mode: "pro", resolution: "1080p" },
      10
    )
    expect(q).toMatchObject({
      modelId: "kling-2.1-master",
      operation: "text-to-video",
      mode: "pro",
      resolution: "1080p",
      quality: null,
      units: 10,
      billingUnit: "second",
      tokens: null,
      pricePerUnitFranks: 2.8,
      baseFranks: 73.5,
      discountPercent: 10,
      discountFranks: 7.35,
      totalFranks: 66.15
    })
    expect(q.breakdown.map((s) => [s.step, s.multiplier ?? s.amountFranks ?? null, s.subtotalFranks])).toEqual([
      ["base", null, 28],
      ["mode", 1.75, 49],
      ["resolution", 1.5, 73.5],
      ["discount", -7.35, 66.15]
    ])
  })

  it("token-priced quotes carry the token count and units of 1K tokens", () => {
    expect(quote({ modelId: "gpt-5-mini", prompt: tokens1234 }, 15)).toMatchObject({
      tokens: 1234,
      units: 1.234,
      billingUnit: "1K tokens",
      baseFranks: 0.25,
      discountFranks: 0.04,
      totalFranks: 0.21
    })
    expect(quote({ modelId: "eleven-v3-tts", prompt: "Hello there" }).tokens).toBe(50)
  })

  it("defaults are resolved and shown", () => {
    expect(quote({ modelId: "gpt-image-1", prompt: "p" })).toMatchObject({
      operation: "text-to-image",
      mode: "standard",
      resolution: "1024x1024",
      quality: "medium",
      units: 1
    })
    expect(quote({ modelId: "whisper-large-v3", duration: 61 })).toMatchObject({ units: 2, billingUnit: "minute" })
  })

  it("surcharges and multipliers appear as their own steps", () => {
    const q = quote(
      { modelId: "gpt-image-1", prompt: "p", quality: "high", imageOutputCount: 2, referenceImageCount: 1 },
      5
    )
    // 6 × 4 × 2 = 48; + 1 = 49; −5 % = 46.55
    expect(q.breakdown.map((s) => s.step)).toEqual([
      "base",
      "mode",
      "resolution",
      "quality",
      "outputs",
      "referenceImages",
      "discount"
    ])
    expect(q.breakdown.find((s) => s.step === "referenceImages")?.amountFranks).toBe(1)
    expect(q).toMatchObject({ baseFranks: 49, discountFranks: 2.45, totalFranks: 46.55 })
  })

  it("a zero discount adds no step, and discount amounts are never −0", () => {
    expect(quote({ modelId: "safety-check" }).breakdown.some((s) => s.step === "discount")).toBe(false)
    const tiny = quote({ modelId: "gpt-5-mini", prompt: "Hello there" }, 50)
    expect(Object.is(tiny.breakdown.at(-1)?.amountFranks, 0)).toBe(true)
    expect(tiny).toMatchObject({ baseFranks: 0.01, discountFranks: 0, totalFranks: 0.01 })
  })

  it("a discount outside 0..100 is a bug, not a price", () => {
    expect(() => estimate(sampleCatalog, { modelId: "safety-check" }, 101)).toThrow(RangeError)
    expect(() => estimate(sampleCatalog, { modelId: "safety-check" }, 2.5)).toThrow(RangeError)
  })
})

describe("estimate: rejections name the field and the allowed values", () => {
  it("unknown model: PRICING_MODEL_UNKNOWN with every model id", () => {
    const e = rejected({ modelId: "sora-9" })
    expect(e._tag).toBe("EstimateRejected")
    expect(e.code).toBe("PRICING_MODEL_UNKNOWN")
    expect(e.messages).toHaveLength(1)
    expect(e.messages[0]).toContain('modelId: unknown model "sora-9"')
    for (const m of sampleCatalog.models) expect(e.messages[0]).toContain(m.modelId)
  })
  it("unknown operation", () => {
    const e = rejected({ modelId: "kling-2.1-master", operation: "dance" })
    expect(e.code).toBe("ESTIMATE_INVALID")
    expect(e.messages).toEqual([
      'operation: "dance" is not offered by kling-2.1-master; allowed: text-to-video, image-to-video'
    ])
  })
  it("unknown mode, resolution and quality: three messages at once", () => {
    const e = rejected({ modelId: "flux-kontext-pro", prompt: "p", mode: "fast", resolution: "4k", quality: "high" })
    expect(e.code).toBe("ESTIMATE_INVALID")
    expect(e.messages).toEqual([
      'mode: "fast" is not offered by flux-kontext-pro; allowed: standard, turbo',
      "resolution: flux-kontext-pro has no resolution choice",
      'quality: "high" is not offered by flux-kontext-pro; allowed: low, medium'
    ])
  })
  it("resolution not offered lists the allowed sizes", () =>
    expect(rejected({ modelId: "gpt-image-1", prompt: "p", resolution: "4k" }).messages).toEqual([
      'resolution: "4k" is not offered by gpt-image-1; allowed: 1024x1024, 1024x1536, 1536x1024'
    ]))
  it("quality on a model without quality tiers", () =>
    expect(rejected({ modelId: "kling-2.1-master", prompt: "p", quality: "low" }).messages).toEqual([
      "quality: kling-2.1-master has no quality choice"
    ]))
  it("duration below and above the model's range", () => {
    expect(rejected({ modelId: "kling-2.1-master", prompt: "p", duration: 11 }).messages).toEqual([
      "duration: must be between 5 and 10 seconds for kling-2.1-master"
    ])
    expect(rejected({ modelId: "kling-2.1-master", prompt: "p", duration: 4 }).messages).toEqual([
      "duration: must be between 5 and 10 seconds for kling-2.1-master"
    ])
  })
  it("duration on a model not priced by time", () =>
    expect(rejected({ modelId: "gpt-image-1", prompt: "p", duration: 5 }).messages).toEqual([
      "duration: gpt-image-1 is not priced by duration"
    ]))
  it("duration required and capped for per-minute pricing", () => {
    expect(rejected({ modelId: "whisper-large-v3" }).messages[0]).toMatch(/^duration: required/)
    expect(rejected({ modelId: "whisper-large-v3", duration: 7201 }).messages).toEqual([
      "duration: must be at most 7200 seconds for whisper-large-v3"
    ])
  })
  it("prompt missing or blank for token-priced models", () => {
    expect(rejected({ modelId: "gpt-5-mini" }).messages).toEqual([
      "prompt: required for gpt-5-mini (priced per 1K prompt tokens)"
    ])
    expect(rejected({ modelId: "gpt-5-mini", prompt: "   " }).messages).toEqual([
      "prompt: required for gpt-5-mini (priced per 1K prompt tokens)"
    ])
  })
  it("imageOutputCount > 1 on a model that renders one output", () =>
    expect(rejected({ modelId: "background-removal", imageOutputCount: 2 }).messages).toEqual([
      "imageOutputCount: background-removal renders one output per request; must be 1"
    ]))
  it("too many input images for the model", () =>
    expect(rejected({ modelId: "kling-2.1-master", operation: "image-to-video", imageCount: 3 }).messages).toEqual([
      "imageCount: must be at most 2 for kling-2.1-master"
    ]))
  it("every input the model does not take, all at once", () => {
    const e = rejected({
      modelId: "kling-2.1-master",
      imageOutputCount: 2,
      voiceCount: 1,
      referenceImageCount: 1,
      referenceVideoCount: 1,
      referenceAudioCount: 1,
      imageCount: 1
    })
    expect(e.messages.map((m) => m.split(":")[0])).toEqual([
      "prompt",
      "imageCount",
      "referenceImageCount",
      "referenceVideoCount",
      "referenceAudioCount",
      "imageOutputCount",
      "voiceCount"
    ])
  })
  it("zero counts of inputs a model does not take are fine", () =>
    expect(
      quote({
        modelId: "gpt-5-mini",
        prompt: tokens1000,
        imageCount: 0,
        referenceVideoCount: 0,
        voiceCount: 0,
        imageOutputCount: 1
      }).totalFranks
    ).toBe(0.2))
  it("the rejection carries its message for logs and its status for the envelope", () => {
    const e = rejected({ modelId: "kling-2.1-master", prompt: "p", duration: 11, mode: "x" })
    expect(e.status).toBe(400)
    expect(e.message).toBe(e.messages.join("; "))
  })
})
