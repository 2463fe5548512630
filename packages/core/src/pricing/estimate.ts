/**
 * The estimate rule: catalog × request × discount → quote. Pure and exact: arithmetic runs on
 * BigInt micro-franks with basis-point multipliers kept as a fraction, and only the total is
 * rounded, up to 0.01 ₣. No side effects: an estimate reserves nothing.
 */
import { Either } from "effect"
import { MICROS_PER_MINOR, MINOR_PER_FRANK } from "../Money.js"
import type { Catalog, Model, Operation, Quality } from "./Catalog.js"
import type { EstimateRequest } from "./EstimateRequest.js"
import { EstimateRejected, type Quote, type QuoteStep } from "./Quote.js"
import { countPromptTokens, VOICE_MARKUP } from "./tokens.js"

const BP = 10_000n
const MICROS_PER_MINOR_N = BigInt(MICROS_PER_MINOR)

/** An exact non-negative rational amount of micro-franks. */
interface Amount {
  readonly num: bigint
  readonly den: bigint
}
const micros = (n: number | bigint): Amount => ({ num: BigInt(n), den: 1n })
const times = (a: Amount, bp: number): Amount => ({ num: a.num * BigInt(bp), den: a.den * BP })
const plus = (a: Amount, m: bigint): Amount => ({ num: a.num + m * a.den, den: a.den })
const scale = (a: Amount, k: number): Amount => ({ num: a.num * BigInt(k), den: a.den })
const ceilDiv = (n: bigint, d: bigint) => (n + d - 1n) / d
/** Rounds up to whole minor units (0.01 ₣). */
const toMinorCeil = (a: Amount): bigint => ceilDiv(a.num, a.den * MICROS_PER_MINOR_N)
const franks = (minor: bigint) => Number(minor) / MINOR_PER_FRANK
const displayFranks = (a: Amount) => franks(toMinorCeil(a))

const listOf = (xs: Iterable<string>) => [...xs].join(", ")

export const findModel = (catalog: Catalog, modelId: string): Model | undefined => catalog.models.find((m) => m.modelId === modelId)

interface Resolved {
  readonly model: Model
  readonly op: Operation
  readonly mode: string
  readonly resolution: string | null
  readonly quality: Quality | null
}

/** Resolves names against the catalog, collecting every problem with the allowed values. */
const resolve = (catalog: Catalog, req: EstimateRequest): Either.Either<Resolved, EstimateRejected> => {
  const model = findModel(catalog, req.modelId)
  if (model === undefined)
    return Either.left(
      new EstimateRejected({
        code: "PRICING_MODEL_UNKNOWN",
        message: `unknown modelId ${JSON.stringify(req.modelId)}`,
        messages: [`modelId: unknown model ${JSON.stringify(req.modelId)}; allowed: ${listOf(catalog.models.map((m) => m.modelId))}`]
      })
    )
  const op = req.operation === undefined ? model.operations[0] : model.operations.find((o) => o.operation === req.operation)
  if (op === undefined)
    return Either.left(
      new EstimateRejected({
        code: "ESTIMATE_INVALID",
        message: "the request does not fit the model",
        messages: [`operation: ${JSON.stringify(req.operation)} is not offered by ${model.modelId}; allowed: ${listOf(model.operations.map((o) => o.operation))}`]
      })
    )
  const problems: string[] = []
  const mode = req.mode ?? op.defaultMode
  if (!(mode in op.modes)) problems.push(`mode: ${JSON.stringify(mode)} is not offered; allowed: ${listOf(Object.keys(op.modes))}`)
  let resolution: string | null = null
  if (op.resolutions === undefined) {
    if (req.resolution !== undefined) problems.push(`resolution: ${model.modelId} has no resolution choice`)
  } else {
    resolution = req.resolution ?? op.defaultResolution ?? null
    if (resolution === null || !(resolution in op.resolutions))
      problems.push(`resolution: ${JSON.stringify(resolution)} is not offered; allowed: ${listOf(Object.keys(op.resolutions))}`)
  }
  let quality: Quality | null = null
  if (op.qualities === undefined) {
    if (req.quality !== undefined) problems.push(`quality: ${model.modelId} has no quality tiers`)
  } else {
    quality = req.quality ?? op.defaultQuality ?? null
    if (quality === null || op.qualities[quality] === undefined)
      problems.push(`quality: ${JSON.stringify(quality)} is not offered; allowed: ${listOf(Object.keys(op.qualities))}`)
  }
  const m = op.metering
  if (m.kind === "seconds" && req.duration !== undefined && (req.duration < m.minSeconds || req.duration > m.maxSeconds))
    problems.push(`duration: must be between ${m.minSeconds} and ${m.maxSeconds} seconds for ${model.modelId}`)
  if (m.kind === "minutes") {
    if (req.duration === undefined) problems.push("duration: required (seconds of input audio)")
    else if (req.duration > m.maxSeconds) problems.push(`duration: at most ${m.maxSeconds} seconds for ${model.modelId}`)
  }
  if ((m.kind !== "seconds" && m.kind !== "minutes") && req.duration !== undefined) problems.push(`duration: ${model.modelId} is not priced by duration`)
  if (op.promptRequired === true && (req.prompt === undefined || req.prompt.trim().length === 0)) problems.push(`prompt: required for ${model.modelId}`)
  if (req.imageCount !== undefined && req.imageCount > 0) {
    if (op.inputImageMicros === undefined) problems.push(`imageCount: ${model.modelId} takes no input images`)
    else if (op.maxInputImages !== undefined && req.imageCount > op.maxInputImages) problems.push(`imageCount: at most ${op.maxInputImages} for ${model.modelId}`)
  }
  const refs = [
    ["referenceImageCount", req.referenceImageCount, op.referenceImageMicros],
    ["referenceVideoCount", req.referenceVideoCount, op.referenceVideoMicros],
    ["referenceAudioCount", req.referenceAudioCount, op.referenceAudioMicros]
  ] as const
  for (const [field, count, price] of refs)
    if (count !== undefined && count > 0 && price === undefined) problems.push(`${field}: ${model.modelId} takes no such references`)
  if (req.imageOutputCount !== undefined && req.imageOutputCount > 1 && op.outputCountMultiplies !== true)
    problems.push(`imageOutputCount: ${model.modelId} renders one output per request`)
  if (req.voiceCount !== undefined && req.voiceCount > 0 && op.voiceMicros === undefined) problems.push(`voiceCount: ${model.modelId} has no voices`)
  if (problems.length > 0) return Either.left(new EstimateRejected({ code: "ESTIMATE_INVALID", message: "the request does not fit the model", messages: problems }))
  return Either.right({ model, op, mode, resolution, quality })
}

export const estimate = (catalog: Catalog, req: EstimateRequest, discountPercent: number): Either.Either<Quote, EstimateRejected> =>
  Either.map(resolve(catalog, req), ({ model, op, mode, resolution, quality }) => {
    const steps: QuoteStep[] = []
    const m = op.metering
    let units: number
    let tokens: number | null = null
    let amount: Amount
    switch (m.kind) {
      case "seconds":
        units = req.duration ?? m.defaultSeconds
        amount = micros(BigInt(units) * BigInt(op.pricePerUnitMicros))
        break
      case "minutes":
        units = Math.ceil((req.duration ?? 0) / 60)
        amount = micros(BigInt(units) * BigInt(op.pricePerUnitMicros))
        break
      case "tokens": {
        tokens = Math.max(m.minimumTokens, countPromptTokens(req.prompt ?? ""))
        units = tokens / 1000
        // Exactly tokens × price-per-1K / 1000, kept as a fraction.
        amount = { num: BigInt(tokens) * BigInt(op.pricePerUnitMicros), den: 1000n }
        break
      }
      case "request":
        units = 1
        amount = micros(op.pricePerUnitMicros)
    }
    steps.push({
      step: "base",
      description: m.kind === "tokens" ? `${tokens} prompt tokens × price per 1K tokens` : `${units} ${op.billingUnit} × price per ${op.billingUnit}`,
      subtotalFranks: displayFranks(amount)
    })
    const multiply = (step: string, description: string, bp: number) => {
      amount = times(amount, bp)
      steps.push({ step, description, multiplier: bp / 10_000, subtotalFranks: displayFranks(amount) })
    }
    multiply("mode", `mode ${mode}`, op.modes[mode]!)
    if (resolution !== null && op.resolutions !== undefined) multiply("resolution", `resolution ${resolution}`, op.resolutions[resolution]!)
    if (quality !== null && op.qualities?.[quality] !== undefined) multiply("quality", `quality ${quality}`, op.qualities[quality])
    const surcharge = (step: string, description: string, count: number | undefined, price: number | undefined) => {
      if (count === undefined || count === 0 || price === undefined) return
      const added = BigInt(count) * BigInt(price)
      amount = plus(amount, added)
      steps.push({ step, description, amountFranks: displayFranks(micros(added)), subtotalFranks: displayFranks(amount) })
    }
    surcharge("inputImages", `${req.imageCount} input image(s)`, req.imageCount, op.inputImageMicros)
    surcharge("referenceImages", `${req.referenceImageCount} reference image(s)`, req.referenceImageCount, op.referenceImageMicros)
    surcharge("referenceVideos", `${req.referenceVideoCount} reference video(s)`, req.referenceVideoCount, op.referenceVideoMicros)
    surcharge("referenceAudios", `${req.referenceAudioCount} reference audio(s)`, req.referenceAudioCount, op.referenceAudioMicros)
    if (op.voiceMicros !== undefined && req.prompt !== undefined && VOICE_MARKUP.test(req.prompt)) {
      // Voices in the launch list; without a count, the distinct voices the markup names.
      const voices = req.voiceCount ?? new Set(req.prompt.match(/<<<voice_\d+>>>/g) ?? []).size
      surcharge("voices", `${voices} voice(s) used by <<<voice_N>>> markup`, voices, op.voiceMicros)
    }
    const outputs = req.imageOutputCount ?? 1
    if (op.outputCountMultiplies === true && outputs > 1) {
      amount = scale(amount, outputs)
      steps.push({ step: "outputs", description: `${outputs} images per request`, multiplier: outputs, subtotalFranks: displayFranks(amount) })
    }
    const baseMinor = toMinorCeil(amount)
    // The discount is taken from the rounded base and rounded down, so it never exceeds its percent.
    const discountMinor = (baseMinor * BigInt(discountPercent)) / 100n
    const totalMinor = baseMinor - discountMinor
    if (discountPercent > 0)
      steps.push({ step: "discount", description: `tariff discount ${discountPercent}%`, amountFranks: -franks(discountMinor), subtotalFranks: franks(totalMinor) })
    return {
      modelId: model.modelId,
      operation: op.operation,
      mode,
      resolution,
      quality,
      billingUnit: op.billingUnit,
      units,
      tokens,
      pricePerUnitFranks: op.pricePerUnitMicros / 1_000_000,
      breakdown: steps,
      baseFranks: franks(baseMinor),
      discountPercent,
      discountFranks: franks(discountMinor),
      totalFranks: franks(totalMinor),
      unitOfAccount: "Франки" as const
    }
  })
