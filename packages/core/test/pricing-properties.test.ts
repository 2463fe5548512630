/**
 * Property tests of the estimator over random valid requests for every model of the sample
 * catalog: totals are whole kopecks, agree with an independent floating-point oracle to within
 * the one rounding step, grow with duration and with imageOutputCount, and a discount never
 * raises a price.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { franksToMinor } from "../src/internal/money.js"
import type { Operation } from "../src/pricing/Catalog.js"
import type { EstimateRequest } from "../src/pricing/EstimateRequest.js"
import type { Quote } from "../src/pricing/Quote.js"
import { estimate } from "../src/pricing/internal/estimate.js"
import { sampleCatalog } from "../src/pricing/sampleCatalog.js"
import { countPromptTokens } from "../src/pricing/tokens.js"

const pairs = sampleCatalog.models.flatMap((model) => model.operations.map((op) => ({ model, op })))

const optional = <A>(when: boolean, arb: () => fc.Arbitrary<A>): fc.Arbitrary<A | undefined> =>
  when ? fc.option(arb(), { nil: undefined }) : fc.constant(undefined)
/** One of the allowed names, or absent (the default applies). */
const nameOf = <A extends string>(table: Partial<Record<A, unknown>> | undefined): fc.Arbitrary<A | undefined> => {
  const names = Object.keys(table ?? {}) as A[]
  return names.length === 0 ? fc.constant(undefined) : fc.option(fc.constantFrom(...names), { nil: undefined })
}

/** Drops absent fields: the request type has no `undefined` values (exactOptionalPropertyTypes). */
const compact = (r: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as unknown as EstimateRequest

const promptArb = fc
  .tuple(fc.constantFrom("", "<<<voice_1>>> ", "<<<voice_2>>> hi <<<voice_7>>> "), fc.string({ maxLength: 400 }))
  .map(([markup, text]) => `${markup}${text}x`) // never blank

const requestFor = ({ model, op }: (typeof pairs)[number]): fc.Arbitrary<EstimateRequest> => {
  const m = op.metering
  return fc
    .record({
      modelId: fc.constant(model.modelId),
      operation: fc.constant(op.operation),
      mode: nameOf(op.modes),
      resolution: nameOf(op.resolutions),
      quality: nameOf(op.qualities),
      duration:
        m.kind === "seconds"
          ? fc.integer({ min: m.minSeconds, max: m.maxSeconds })
          : m.kind === "minutes"
            ? fc.integer({ min: 1, max: m.maxSeconds })
            : fc.constant(undefined),
      prompt: fc.option(promptArb, { nil: undefined }).map((p) => (op.promptRequired === true ? (p ?? "x") : p)),
      imageCount: optional(op.inputImageMicros !== undefined, () =>
        fc.integer({ min: 0, max: op.maxInputImages ?? 30 })
      ),
      referenceImageCount: optional(op.referenceImageMicros !== undefined, () => fc.integer({ min: 0, max: 30 })),
      referenceVideoCount: optional(op.referenceVideoMicros !== undefined, () => fc.integer({ min: 0, max: 10 })),
      referenceAudioCount: optional(op.referenceAudioMicros !== undefined, () => fc.integer({ min: 0, max: 10 })),
      imageOutputCount: optional(op.outputCountMultiplies === true, () => fc.integer({ min: 1, max: 9 })),
      voiceCount: optional(op.voiceMicros !== undefined, () => fc.integer({ min: 0, max: 10 }))
    })
    .map(compact)
}

const anyRequest = fc.constantFrom(...pairs).chain(requestFor)
const discountArb = fc.integer({ min: 0, max: 100 })

const quote = (req: EstimateRequest, discount: number): Quote =>
  Either.getOrElse(estimate(sampleCatalog, req, discount), (e) => {
    throw new Error(`rejected ${JSON.stringify(req)}: ${e.messages.join("; ")}`)
  })

const opOf = (req: EstimateRequest): Operation =>
  pairs.find((p) => p.model.modelId === req.modelId && p.op.operation === req.operation)!.op

/** The documented rules in floating point, written independently of the implementation. */
const oracleFranks = (req: EstimateRequest, discount: number): number => {
  const op = opOf(req)
  const m = op.metering
  const price = op.pricePerUnitMicros / 1e6
  let amount =
    m.kind === "seconds"
      ? (req.duration ?? m.defaultSeconds) * price
      : m.kind === "minutes"
        ? Math.ceil((req.duration ?? 0) / 60) * price
        : m.kind === "tokens"
          ? (Math.max(m.minimumTokens, countPromptTokens(req.prompt ?? "")) * price) / 1000
          : price
  amount *= (op.modes[req.mode ?? op.defaultMode] ?? 0) / 1e4
  const resolution = req.resolution ?? op.defaultResolution
  if (op.resolutions !== undefined && resolution !== undefined) amount *= (op.resolutions[resolution] ?? 0) / 1e4
  const quality = req.quality ?? op.defaultQuality
  if (op.qualities !== undefined && quality !== undefined) amount *= (op.qualities[quality] ?? 0) / 1e4
  if (op.outputCountMultiplies === true) amount *= req.imageOutputCount ?? 1
  const each = (count: number | undefined, micros: number | undefined) => ((count ?? 0) * (micros ?? 0)) / 1e6
  amount += each(req.imageCount, op.inputImageMicros)
  amount += each(req.referenceImageCount, op.referenceImageMicros)
  amount += each(req.referenceVideoCount, op.referenceVideoMicros)
  amount += each(req.referenceAudioCount, op.referenceAudioMicros)
  const markup = req.prompt?.match(/<<<voice_\d+>>>/g) ?? []
  if (markup.length > 0) amount += each(req.voiceCount ?? new Set(markup).size, op.voiceMicros)
  return (amount * (100 - discount)) / 100
}

const minor = (franks: number) => {
  const m = franksToMinor(franks)
  if (m === undefined) throw new Error(`${franks} is not a whole number of kopecks`)
  return m
}

describe("estimate (properties over the whole sample catalog)", () => {
  it("every generated valid request is accepted, in whole kopecks, with base − discount = total", () => {
    fc.assert(
      fc.property(anyRequest, discountArb, (req, d) => {
        const q = quote(req, d)
        // total × 100 is an integer: franksToMinor accepts at most 2 decimals, exactly.
        expect(Number.isInteger(minor(q.totalFranks))).toBe(true)
        expect(minor(q.baseFranks) - minor(q.discountFranks)).toBe(minor(q.totalFranks))
        expect(q.totalFranks).toBeLessThanOrEqual(q.baseFranks)
        expect(q.discountFranks).toBeGreaterThanOrEqual(0)
      }),
      { numRuns: 500 }
    )
  })

  it("agrees with the oracle: never below the exact amount, less than 0.01 ₣ above it", () => {
    fc.assert(
      fc.property(anyRequest, discountArb, (req, d) => {
        const exact = oracleFranks(req, d)
        const total = quote(req, d).totalFranks
        expect(total).toBeGreaterThanOrEqual(exact - 1e-9)
        expect(total).toBeLessThan(exact + 0.01 + 1e-9)
      }),
      { numRuns: 500 }
    )
  })

  const timed = pairs.filter((p) => p.op.metering.kind === "seconds" || p.op.metering.kind === "minutes")
  it("is monotone non-decreasing in duration", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...timed).chain((p) => requestFor(p)),
        discountArb,
        (req, d) => {
          const m = opOf(req).metering
          const max = m.kind === "seconds" || m.kind === "minutes" ? m.maxSeconds : 0
          fc.pre(req.duration !== undefined && req.duration < max)
          const longer = { ...req, duration: req.duration! + 1 }
          expect(quote(longer, d).totalFranks).toBeGreaterThanOrEqual(quote(req, d).totalFranks)
        }
      ),
      { numRuns: 300 }
    )
  })

  const multiplying = pairs.filter((p) => p.op.outputCountMultiplies === true)
  it("is monotone non-decreasing in imageOutputCount", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...multiplying).chain((p) => requestFor(p)),
        fc.integer({ min: 1, max: 8 }),
        discountArb,
        (req, n, d) => {
          const a = quote({ ...req, imageOutputCount: n }, d).totalFranks
          const b = quote({ ...req, imageOutputCount: n + 1 }, d).totalFranks
          expect(b).toBeGreaterThanOrEqual(a)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("a discount never increases the price, and a larger one never costs more", () => {
    fc.assert(
      fc.property(anyRequest, discountArb, discountArb, (req, d1, d2) => {
        const [lo, hi] = d1 <= d2 ? [d1, d2] : [d2, d1]
        const none = quote(req, 0).totalFranks
        expect(quote(req, lo).totalFranks).toBeLessThanOrEqual(none)
        expect(quote(req, hi).totalFranks).toBeLessThanOrEqual(quote(req, lo).totalFranks)
      }),
      { numRuns: 300 }
    )
  })
})
