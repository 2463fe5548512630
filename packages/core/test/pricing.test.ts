/**
 * Estimates against the bundled sample catalog: every input has its effect, every validation
 * error is reported with the allowed values. Expected totals are worked out by hand from the
 * catalog prices in the comments.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import fc from "fast-check"
import { decodeCatalog, type EstimateRequest, EstimateRequest as EstimateRequestSchema, estimate, sampleCatalog, sampleCatalogJson } from "../src/index.js"

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

const hundred = "hello" + " hello".repeat(999) // exactly 1,000 o200k tokens

describe("estimate: every input has an effect", () => {
  const cases: Array<[string, EstimateRequest, number, number?]> = [
    // kling text-to-video: 2.80 ₣/s, default 5 s, std ×1, 720p ×1
    ["duration default", { modelId: "kling-2.1-master", prompt: "a cat" }, 14],
    ["duration 7 s", { modelId: "kling-2.1-master", prompt: "a cat", duration: 7 }, 19.6],
    ["mode pro ×1.75", { modelId: "kling-2.1-master", prompt: "a cat", mode: "pro" }, 24.5],
    ["resolution 1080p ×1.5", { modelId: "kling-2.1-master", prompt: "a cat", resolution: "1080p" }, 21],
    ["all multipliers and 10% discount", { modelId: "kling-2.1-master", prompt: "a cat", duration: 10, mode: "pro", resolution: "1080p" }, 66.15, 10],
    // image-to-video: + 0.50 ₣ per input image
    ["imageCount surcharge", { modelId: "kling-2.1-master", operation: "image-to-video", imageCount: 2 }, 15],
    // veo-3: 4 ₣/s, default 8 s = 32; references 1 / 5 / 2 ₣ each
    ["reference images", { modelId: "veo-3", prompt: "p", referenceImageCount: 3 }, 35],
    ["reference videos", { modelId: "veo-3", prompt: "p", referenceVideoCount: 1 }, 37],
    ["reference audios", { modelId: "veo-3", prompt: "p", referenceAudioCount: 2 }, 36],
    ["standard ×2, 1080p ×1.25, 4 s", { modelId: "veo-3", prompt: "p", mode: "standard", resolution: "1080p", duration: 4 }, 40],
    // voices: 3 ₣ each, only with <<<voice_N>>> markup
    ["voices with markup", { modelId: "veo-3", prompt: "<<<voice_1>>> Hi <<<voice_2>>> Yo", voiceCount: 2 }, 38],
    ["voices without markup cost nothing", { modelId: "veo-3", prompt: "voice_1 says hi", voiceCount: 2 }, 32],
    ["markup without voiceCount counts distinct voices", { modelId: "veo-3", prompt: "<<<voice_1>>> a <<<voice_1>>> b <<<voice_3>>> c" }, 38],
    // gpt-image-1: 6 ₣ per image, quality medium ×1 / low ×0.25 / high ×4, sizes, n multiplies
    ["image default", { modelId: "gpt-image-1", prompt: "p" }, 6],
    ["quality low", { modelId: "gpt-image-1", prompt: "p", quality: "low" }, 1.5],
    ["quality high (one model only)", { modelId: "gpt-image-1", prompt: "p", quality: "high" }, 24],
    ["portrait size ×1.5", { modelId: "gpt-image-1", prompt: "p", resolution: "1024x1536" }, 9],
    ["imageOutputCount multiplies", { modelId: "gpt-image-1", prompt: "p", imageOutputCount: 4 }, 24],
    ["n multiplies surcharges too", { modelId: "gpt-image-1", prompt: "p", imageOutputCount: 3, referenceImageCount: 2 }, 24],
    // flux image-edit: 4 ₣, low ×0.6, turbo ×0.75, input images 0.20 ₣
    ["flux low", { modelId: "flux-kontext-pro", prompt: "p", quality: "low" }, 2.4],
    ["flux turbo", { modelId: "flux-kontext-pro", prompt: "p", mode: "turbo" }, 3],
    ["flux inputs and n", { modelId: "flux-kontext-pro", prompt: "p", imageCount: 3, imageOutputCount: 2 }, 9.2],
    // eleven tts: 30 ₣ per 1K tokens, at least 50 tokens → 1.50; expressive ×1.5; voices 2 ₣
    ["token minimum", { modelId: "eleven-v3-tts", prompt: "Hello there" }, 1.5],
    ["tts expressive + voice markup", { modelId: "eleven-v3-tts", prompt: "<<<voice_1>>> Hello there", mode: "expressive" }, 4.25],
    // gpt-5-mini: 0.20 ₣ per 1K tokens; 1,000 tokens = 0.20; reasoning ×3
    ["1,000 prompt tokens", { modelId: "gpt-5-mini", prompt: hundred }, 0.2],
    ["reasoning mode", { modelId: "gpt-5-mini", prompt: hundred, mode: "reasoning" }, 0.6],
    // 2 tokens × 0.20 / 1000 = 0.0004 ₣: rounds up to the smallest unit
    ["tiny token amounts round up to 0.01", { modelId: "gpt-5-mini", prompt: "Hello there" }, 0.01],
    // claude: 1.20 ₣ per 1K tokens + 0.30 ₣ per input image
    ["chat with images", { modelId: "claude-sonnet-4", prompt: hundred, imageCount: 2 }, 1.8],
    // whisper: 0.60 ₣ per started minute; diarize ×1.5
    ["61 s is two minutes", { modelId: "whisper-large-v3", duration: 61 }, 1.2],
    ["diarize", { modelId: "whisper-large-v3", duration: 60, mode: "diarize" }, 0.9],
    // topaz: 0.50 ₣/s, default 10 s; 4k ×3; enhanced ×1.6
    ["upscale default", { modelId: "topaz-video-upscale" }, 5],
    ["upscale 4k enhanced", { modelId: "topaz-video-upscale", resolution: "4k", mode: "enhanced" }, 24],
    ["background removal precise", { modelId: "background-removal", mode: "precise" }, 1.6]
  ]
  for (const [name, req, total, discount] of cases)
    it(name, () => {
      const q = quote(req, discount ?? 0)
      expect(q.totalFranks).toBe(total)
      expect(q.unitOfAccount).toBe("Франки")
    })

  it("reports tokens, units and a breakdown that ends at the total", () => {
    const q = quote({ modelId: "kling-2.1-master", prompt: "a cat", duration: 10, mode: "pro", resolution: "1080p" }, 10)
    expect(q).toMatchObject({ units: 10, billingUnit: "second", baseFranks: 73.5, discountPercent: 10, discountFranks: 7.35, totalFranks: 66.15 })
    expect(q.breakdown.map((s) => s.step)).toEqual(["base", "mode", "resolution", "discount"])
    expect(q.breakdown.at(-1)?.subtotalFranks).toBe(66.15)
    expect(quote({ modelId: "gpt-5-mini", prompt: hundred }).tokens).toBe(1000)
  })
})

describe("estimate: rejections name the allowed values", () => {
  it("unknown model", () => {
    const e = rejected({ modelId: "sora-9" })
    expect(e.code).toBe("PRICING_MODEL_UNKNOWN")
    expect(e.messages[0]).toContain("kling-2.1-master")
  })
  it("unknown operation", () => expect(rejected({ modelId: "kling-2.1-master", operation: "dance" }).messages[0]).toContain("text-to-video, image-to-video"))
  it("unknown mode, resolution and quality, all at once", () => {
    const e = rejected({ modelId: "gpt-image-1", prompt: "p", mode: "fast", resolution: "4k", quality: "ultra" as never })
    expect(e.code).toBe("ESTIMATE_INVALID")
    expect(e.messages).toHaveLength(3)
    expect(e.messages[0]).toContain("allowed: standard")
    expect(e.messages[1]).toContain("allowed: 1024x1024, 1024x1536, 1536x1024")
    expect(e.messages[2]).toContain("allowed: low, medium, high")
  })
  it("quality high exists for one model only", () => expect(rejected({ modelId: "flux-kontext-pro", prompt: "p", quality: "high" }).messages[0]).toContain("allowed: low, medium"))
  it("duration outside the model's range", () => expect(rejected({ modelId: "kling-2.1-master", prompt: "p", duration: 11 }).messages[0]).toContain("between 5 and 10"))
  it("duration on a model not priced by time", () => expect(rejected({ modelId: "gpt-image-1", prompt: "p", duration: 5 }).messages[0]).toContain("not priced by duration"))
  it("duration required for transcription", () => expect(rejected({ modelId: "whisper-large-v3" }).messages[0]).toContain("duration: required"))
  it("prompt required for token-priced models", () => expect(rejected({ modelId: "gpt-5-mini" }).messages[0]).toContain("prompt: required"))
  it("inputs a model does not take", () => {
    const e = rejected({ modelId: "kling-2.1-master", prompt: "p", imageOutputCount: 2, voiceCount: 1, referenceImageCount: 1, referenceVideoCount: 1, referenceAudioCount: 1, imageCount: 1 })
    expect(e.messages).toHaveLength(6)
  })
  it("too many input images", () => expect(rejected({ modelId: "kling-2.1-master", operation: "image-to-video", imageCount: 3 }).messages[0]).toContain("at most 2"))
  it("resolution on a model without resolutions", () => expect(rejected({ modelId: "background-removal", resolution: "4k" }).messages[0]).toContain("no resolution"))
})

describe("estimate request schema", () => {
  const decode = (input: unknown) => Schema.decodeUnknownEither(EstimateRequestSchema)(input)
  const problems = (input: unknown) => {
    const r = decode(input)
    if (Either.isRight(r)) return []
    return [...new Set(ParseResult.ArrayFormatter.formatErrorSync(r.left).map((i) => i.path.join(".")))]
  }
  it("coerces numeric strings and strips unknown fields", () => {
    const r = decode({ modelId: "m", duration: "5", imageOutputCount: "2", extra: true })
    expect(r).toEqual(Either.right({ modelId: "m", duration: 5, imageOutputCount: 2 }))
  })
  it("reports every range violation at once", () => {
    expect(
      problems({
        modelId: "m",
        referenceImageCount: 31,
        referenceVideoCount: 11,
        referenceAudioCount: -1,
        imageOutputCount: 0,
        voiceCount: 11,
        prompt: "x".repeat(3001),
        resolution: "x".repeat(17),
        quality: "ultra",
        duration: "5.5",
        imageCount: 31
      }).sort()
    ).toEqual(
      ["duration", "imageCount", "imageOutputCount", "prompt", "quality", "referenceAudioCount", "referenceImageCount", "referenceVideoCount", "resolution", "voiceCount"].sort()
    )
    expect(problems({ imageOutputCount: 10 })).toEqual(["modelId", "imageOutputCount"])
  })
})

describe("catalog file", () => {
  it("the bundled sample has all five families", () => {
    expect(new Set(sampleCatalog.models.map((m) => m.family))).toEqual(new Set(["video", "image", "audio", "text", "processing"]))
  })
  it("a broken catalog names the path of every problem", () => {
    const broken = structuredClone(sampleCatalogJson) as { models: Array<Record<string, unknown>> }
    delete broken.models[0]!.title
    broken.models[1]!.modelId = broken.models[2]!.modelId
    const first = decodeCatalog(broken)
    expect(Either.isLeft(first) && first.left.problems.join("\n")).toContain("models.0.title")
    const onlyDuplicate = structuredClone(sampleCatalogJson) as { models: Array<Record<string, unknown>> }
    onlyDuplicate.models[1]!.modelId = onlyDuplicate.models[2]!.modelId
    const second = decodeCatalog(onlyDuplicate)
    expect(Either.isLeft(second) && second.left.problems.join("\n")).toContain("models.2 (gpt-image-1): duplicate modelId")
  })
})

describe("estimate (property)", () => {
  const discount = fc.integer({ min: 0, max: 100 })
  it("totals are whole hundredths of a frank", () => {
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 10 }), fc.constantFrom("std", "pro"), fc.constantFrom("720p", "1080p"), discount, (duration, mode, resolution, d) => {
        const q = quote({ modelId: "kling-2.1-master", prompt: "p", duration, mode, resolution }, d)
        expect(Number.isInteger(Math.round(q.totalFranks * 100))).toBe(true)
        expect(String(q.totalFranks)).toMatch(/^\d+(\.\d{1,2})?$/)
      })
    )
  })
  it("monotone in duration and in imageOutputCount; discounts never raise the price", () => {
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 9 }), fc.integer({ min: 1, max: 8 }), discount, discount, (duration, n, d1, d2) => {
        const a = quote({ modelId: "kling-2.1-master", prompt: "p", duration }, d1).totalFranks
        const b = quote({ modelId: "kling-2.1-master", prompt: "p", duration: duration + 1 }, d1).totalFranks
        expect(b).toBeGreaterThanOrEqual(a)
        const x = quote({ modelId: "gpt-image-1", prompt: "p", imageOutputCount: n }, d1).totalFranks
        const y = quote({ modelId: "gpt-image-1", prompt: "p", imageOutputCount: n + 1 }, d1).totalFranks
        expect(y).toBeGreaterThanOrEqual(x)
        const [lo, hi] = d1 <= d2 ? [d1, d2] : [d2, d1]
        expect(quote({ modelId: "veo-3", prompt: "p" }, hi).totalFranks).toBeLessThanOrEqual(quote({ modelId: "veo-3", prompt: "p" }, lo).totalFranks)
        expect(quote({ modelId: "veo-3", prompt: "p" }, lo).totalFranks).toBeLessThanOrEqual(quote({ modelId: "veo-3", prompt: "p" }, 0).totalFranks)
      })
    )
  })
})
