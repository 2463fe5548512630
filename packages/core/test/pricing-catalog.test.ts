/**
 * The catalog file: the bundled sample loads and covers every family and every pricing rule; a
 * broken file fails with every problem named by its path. Also the catalog view and the service.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { CatalogInvalid, decodeCatalog, families, loadCatalog } from "../src/pricing/Catalog.js"
import { CatalogView, catalogView } from "../src/pricing/CatalogView.js"
import { Pricing } from "../src/pricing/Pricing.js"
import { Quote } from "../src/pricing/Quote.js"
import { sampleCatalog, sampleCatalogJson } from "../src/pricing/sampleCatalog.js"

interface RawOperation extends Record<string, unknown> {}
interface RawModel extends Record<string, unknown> {
  operations: RawOperation[]
}
interface RawCatalog extends Record<string, unknown> {
  models: RawModel[]
}
const raw = (): RawCatalog => structuredClone(sampleCatalogJson) as RawCatalog
const modelIndex = (c: RawCatalog, id: string) => c.models.findIndex((m) => m.modelId === id)

const problemsOf = (input: unknown): ReadonlyArray<string> =>
  Either.match(decodeCatalog(input), { onLeft: (e) => e.problems, onRight: () => [] })

describe("sample catalog", () => {
  it.effect("loads through loadCatalog", () =>
    Effect.gen(function* () {
      const catalog = yield* loadCatalog(sampleCatalogJson)
      expect(catalog).toEqual(sampleCatalog)
      expect(catalog.refreshAfterSeconds).toBe(86_400)
    })
  )

  it("has at least two models in every family", () => {
    for (const f of families)
      expect(sampleCatalog.models.filter((m) => m.family === f).length, f).toBeGreaterThanOrEqual(2)
  })

  it("offers quality high on exactly one model, low/medium on others", () => {
    const withQuality = (q: "low" | "medium" | "high") =>
      sampleCatalog.models.filter((m) => m.operations.some((o) => o.qualities?.[q] !== undefined)).map((m) => m.modelId)
    expect(withQuality("high")).toEqual(["gpt-image-1"])
    expect(withQuality("low").length).toBeGreaterThanOrEqual(2)
    expect(withQuality("medium").length).toBeGreaterThanOrEqual(2)
  })

  it("makes every estimate input matter somewhere", () => {
    const ops = sampleCatalog.models.flatMap((m) => m.operations)
    expect(ops.some((o) => Object.keys(o.modes).length > 1)).toBe(true)
    expect(ops.some((o) => o.resolutions !== undefined && Object.keys(o.resolutions).length > 1)).toBe(true)
    expect(ops.some((o) => o.metering.kind === "seconds")).toBe(true)
    expect(ops.some((o) => o.metering.kind === "minutes")).toBe(true)
    expect(ops.some((o) => o.metering.kind === "tokens")).toBe(true)
    expect(ops.some((o) => (o.inputImageMicros ?? 0) > 0)).toBe(true)
    expect(
      ops.some(
        (o) =>
          o.referenceImageMicros !== undefined &&
          o.referenceVideoMicros !== undefined &&
          o.referenceAudioMicros !== undefined
      )
    ).toBe(true)
    expect(ops.some((o) => o.outputCountMultiplies === true)).toBe(true)
    expect(ops.filter((o) => o.voiceMicros !== undefined).length).toBeGreaterThanOrEqual(2)
    expect(new Set(ops.map((o) => o.billingUnit))).toEqual(
      new Set(["second", "minute", "image", "1K tokens", "request"])
    )
  })
})

describe("broken catalogs name the path of every problem", () => {
  it("a missing field", () => {
    const c = raw()
    delete c.models[0]!.title
    expect(problemsOf(c)).toEqual(["models.0.title: is missing"])
  })

  it("a duplicate modelId", () => {
    const c = raw()
    c.models[3]!.modelId = c.models[2]!.modelId
    expect(problemsOf(c)).toEqual([`models.3.modelId: duplicate modelId "${c.models[2]!.modelId}"`])
  })

  it("a duplicate operation within a model", () => {
    const c = raw()
    const kling = c.models[modelIndex(c, "kling-2.1-master")]!
    kling.operations[1]!.operation = "text-to-video"
    expect(problemsOf(c)).toEqual([
      `models.${modelIndex(c, "kling-2.1-master")}.operations.1.operation: duplicate operation "text-to-video"`
    ])
  })

  it("defaults that are not among the allowed values", () => {
    const c = raw()
    const i = modelIndex(c, "gpt-image-1")
    const op = c.models[i]!.operations[0]!
    op.defaultMode = "turbo"
    op.defaultResolution = "8k"
    op.defaultQuality = "ultra"
    expect(problemsOf(c)).toEqual([
      `models.${i}.operations.0.defaultQuality: must be one of "low", "medium", "high"; got "ultra"`
    ])
    op.defaultQuality = "low"
    delete (op.qualities as Record<string, unknown>).low
    expect(problemsOf(c)).toEqual([
      `models.${i}.operations.0.defaultMode: "turbo" is not among modes (standard)`,
      `models.${i}.operations.0.defaultResolution: "8k" is not among resolutions (1024x1024, 1024x1536, 1536x1024)`,
      `models.${i}.operations.0.defaultQuality: "low" is not among qualities (medium, high)`
    ])
  })

  it("a billing unit that does not fit the metering, and a bad seconds range", () => {
    const c = raw()
    const i = modelIndex(c, "topaz-video-upscale")
    const op = c.models[i]!.operations[0]!
    op.billingUnit = "1K tokens"
    op.metering = { kind: "seconds", minSeconds: 10, maxSeconds: 5, defaultSeconds: 7 }
    expect(problemsOf(c)).toEqual([
      `models.${i}.operations.0.billingUnit: "1K tokens" does not fit seconds metering; use "second"`,
      `models.${i}.operations.0.metering: needs minSeconds ≤ defaultSeconds ≤ maxSeconds (got 10, 7, 5)`
    ])
  })

  it("quality high on a second model", () => {
    const c = raw()
    const i = modelIndex(c, "flux-kontext-pro")
    ;(c.models[i]!.operations[0]!.qualities as Record<string, unknown>).high = 30_000
    expect(problemsOf(c)).toEqual([
      `models.${i}.operations: quality "high" is offered by one model only; gpt-image-1 already offers it`
    ])
  })

  it("a token-priced operation without a required prompt", () => {
    const c = raw()
    const i = modelIndex(c, "gpt-5-mini")
    delete c.models[i]!.operations[0]!.promptRequired
    expect(problemsOf(c)).toEqual([
      `models.${i}.operations.0.promptRequired: must be true for token-metered operations (the prompt is what is priced)`
    ])
  })

  it("fractional money, zero multipliers, unknown fields and a wrong version, all at once", () => {
    const c = raw()
    c.version = 2
    const op = c.models[0]!.operations[0]!
    op.pricePerUnitMicros = 2.5
    op.modes = { std: 0, pro: 17_500 }
    op.pricePerSecond = 3
    expect(problemsOf(c)).toEqual([
      "version: must be 1 (the only catalog format version)",
      'models.0.operations.0.pricePerSecond: is unexpected, expected: "operation" | "billingUnit" | "metering" | "pricePerUnitMicros" | "modes" | "defaultMode" | "resolutions" | "defaultResolution" | "qualities" | "defaultQuality" | "inputImageMicros" | "maxInputImages" | "referenceImageMicros" | "referenceVideoMicros" | "referenceAudioMicros" | "outputCountMultiplies" | "voiceMicros" | "promptRequired"',
      "models.0.operations.0.pricePerUnitMicros: must be an integer number of micro-franks",
      "models.0.operations.0.modes.std: must be between 1 and 1000000 basis points"
    ])
  })

  it.effect("loadCatalog fails with CatalogInvalid whose message lists the problems", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(loadCatalog({ version: 1, refreshAfterSeconds: 10, models: [] }))
      expect(e).toBeInstanceOf(CatalogInvalid)
      expect(e.problems).toEqual([
        "refreshAfterSeconds: must be an integer between 60 and 604800",
        "models: must list at least one model"
      ])
      expect(e.message).toBe(`price catalog is invalid:\n${e.problems.join("\n")}`)
    })
  )

  it("not an object at all, and a model without operations", () => {
    expect(problemsOf("catalog")).toEqual(['(root): Expected PricingCatalogFile, actual "catalog"'])
    const c = raw()
    c.models[1]!.operations = []
    expect(problemsOf(c)).toEqual(["models.1.operations: must list at least one operation"])
  })
})

describe("catalog view", () => {
  const view = catalogView(sampleCatalog, 15)
  const item = (id: string) =>
    Object.values(view.families)
      .flat()
      .find((i) => i.modelId === id)!

  it("groups items by family with the unit of account and its deprecated alias", () => {
    expect(view).toMatchObject({ refreshAfterSeconds: 86_400, unitOfAccount: "Франки", discountPercent: 15 })
    expect(Object.keys(view.families)).toEqual(["video", "image", "audio", "text", "processing"])
    for (const f of families)
      for (const i of view.families[f]) {
        expect(i.family).toBe(f)
        expect(i.unitOfAccount).toBe("Франки")
        expect(i.currency).toBe("Франки")
      }
    expect(Object.values(view.families).flat()).toHaveLength(sampleCatalog.models.length)
  })

  it("shows list prices, prices at the tariff and every rule", () => {
    const kling = item("kling-2.1-master")
    expect(kling.operations.map((o) => [o.operation, o.isDefault])).toEqual([
      ["text-to-video", true],
      ["image-to-video", false]
    ])
    // 2.80 ₣/s, −15 % = 2.38
    expect(kling.operations[0]).toMatchObject({
      billingUnit: "second",
      pricePerUnit: 2.8,
      pricePerUnitAtTariff: 2.38,
      modes: [
        { name: "std", multiplier: 1, isDefault: true },
        { name: "pro", multiplier: 1.75, isDefault: false }
      ],
      resolutions: [
        { name: "720p", multiplier: 1, isDefault: true },
        { name: "1080p", multiplier: 1.5, isDefault: false }
      ],
      qualities: null,
      duration: { minSeconds: 5, maxSeconds: 10, defaultSeconds: 5, required: false },
      minimumTokens: null,
      surcharges: {},
      imageOutputCountMultiplies: false,
      promptRequired: true
    })
    expect(kling.operations[1]).toMatchObject({
      surcharges: { inputImage: 0.5 },
      maxInputImages: 2,
      promptRequired: false
    })
    expect(item("veo-3").operations[0]!.surcharges).toEqual({
      referenceImage: 1,
      referenceVideo: 5,
      referenceAudio: 2,
      voice: 3
    })
    expect(item("eleven-v3-tts").operations[0]).toMatchObject({
      billingUnit: "1K tokens",
      pricePerUnit: 30,
      minimumTokens: 50,
      duration: null
    })
    expect(item("whisper-large-v3").operations[0]!.duration).toEqual({
      minSeconds: 1,
      maxSeconds: 7200,
      defaultSeconds: null,
      required: true
    })
    expect(item("gpt-image-1").operations[0]).toMatchObject({
      imageOutputCountMultiplies: true,
      qualities: [{ name: "low" }, { name: "medium", isDefault: true }, { name: "high" }]
    })
    // 0.05 ₣ = 50 000 µ₣, −15 % = 42 500 µ₣; 0.20 ₣ → 0.17
    expect(item("safety-check").operations[0]).toMatchObject({
      pricePerUnit: 0.05,
      pricePerUnitAtTariff: 0.0425,
      billingUnit: "request"
    })
    expect(item("gpt-5-mini").operations[0]).toMatchObject({ pricePerUnit: 0.2, pricePerUnitAtTariff: 0.17 })
  })

  it("the discounted unit price rounds up to a whole micro-frank", () => {
    const c = raw()
    c.models[0]!.operations[0]!.pricePerUnitMicros = 7 // 7 µ₣ × 0.95 = 6.65 → 7
    const catalog = Either.getOrThrow(decodeCatalog(c))
    expect(catalogView(catalog, 5).families.video[0]!.operations[0]!.pricePerUnitAtTariff).toBe(0.000007)
    expect(catalogView(catalog, 50).families.video[0]!.operations[0]!.pricePerUnitAtTariff).toBe(0.000004)
  })

  it("encodes with its response schema", () => expect(Schema.encodeSync(CatalogView)(view)).toEqual(view))
})

describe("Pricing service", () => {
  it.effect("serves the catalog view and estimates from the loaded catalog", () =>
    Effect.gen(function* () {
      const pricing = yield* Pricing
      expect(pricing.catalogView(5)).toEqual(catalogView(sampleCatalog, 5))
      expect(pricing.view(5)).toEqual(pricing.catalogView(5))
      const quote = Either.getOrThrow(pricing.estimate({ modelId: "kling-2.1-master", prompt: "a cat" }, 5))
      expect(quote.totalFranks).toBe(13.3)
      expect(Schema.encodeSync(Quote)(quote)).toEqual(quote)
      const rejected = pricing.estimate({ modelId: "nope" }, 0)
      expect(Either.isLeft(rejected) && rejected.left.code).toBe("PRICING_MODEL_UNKNOWN")
    }).pipe(Effect.provide(Pricing.layerFromCatalog(sampleCatalog)))
  )
})
