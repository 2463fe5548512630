/**
 * The estimate rule: catalog × request × tariff discount → quote. Pure and exact: the amount is a
 * fraction of micro-franks (ExactAmount), only the final figures are rounded, up to 0.01 ₣, and
 * an estimate has no side effects (nothing is reserved).
 *
 * Order of the rules, applied to `units × price per unit`:
 *  1. multipliers of mode, resolution and quality tier;
 *  2. `imageOutputCount` (n) multiplies the rendered output, for models that render n images;
 *  3. per-request surcharges are added: input images, reference images/videos/audio, and voices
 *     (only when the prompt carries `<<<voice_N>>>` markup). Inputs are sent once per request,
 *     so n does not multiply them;
 *  4. the tariff discount: total = ⌈exact × (100 − d) / 100⌉ to 0.01 ₣, base = ⌈exact⌉, and the
 *     discount shown is their difference, so base − discount = total to the kopeck.
 */
import { Either } from "effect"
import { type Minor, minorToFranks } from "../../internal/money.js"
import { BP_ONE, type Catalog } from "../Catalog.js"
import type { EstimateRequest } from "../EstimateRequest.js"
import { addMicros, type ExactAmount, fromMicros, microsToFranks, multiply, ratio, toMinorCeil } from "./ExactAmount.js"
import { type EstimateRejected, type Quote, type QuoteStep, UNIT_OF_ACCOUNT } from "../Quote.js"
import { countPromptTokens, markupVoiceCount, VOICE_MARKUP } from "../tokens.js"
import { type ResolvedRequest, validateRequest } from "./validateRequest.js"

const TOKENS_PER_UNIT = 1000

const assertDiscount = (discountPercent: number) => {
  if (!Number.isInteger(discountPercent) || discountPercent < 0 || discountPercent > 100)
    throw new RangeError(`discountPercent must be an integer 0..100, got ${discountPercent}`)
}

/** Units and their exact price before any rule: seconds, started minutes, 1K tokens or one request. */
const basePrice = ({ op }: ResolvedRequest, req: EstimateRequest) => {
  const m = op.metering
  switch (m.kind) {
    case "seconds": {
      const units = req.duration ?? m.defaultSeconds
      return {
        units,
        tokens: null,
        amount: multiply(fromMicros(op.pricePerUnitMicros), units),
        description: `${units} s × price per second`
      }
    }
    case "minutes": {
      const units = Math.ceil((req.duration ?? 0) / 60)
      return {
        units,
        tokens: null,
        amount: multiply(fromMicros(op.pricePerUnitMicros), units),
        description: `${units} started minute(s) × price per minute`
      }
    }
    case "tokens": {
      const counted = countPromptTokens(req.prompt ?? "")
      const tokens = Math.max(m.minimumTokens, counted)
      const floor = counted < m.minimumTokens ? ` (minimum ${m.minimumTokens}; the prompt has ${counted})` : ""
      return {
        units: tokens / TOKENS_PER_UNIT,
        tokens,
        amount: ratio(op.pricePerUnitMicros, tokens, TOKENS_PER_UNIT),
        description: `${tokens} prompt tokens${floor} × price per 1K tokens`
      }
    }
    case "request":
      return {
        units: 1,
        tokens: null,
        amount: fromMicros(op.pricePerUnitMicros),
        description: `1 ${op.billingUnit} × price per ${op.billingUnit}`
      }
  }
}

const franksOf = (a: ExactAmount) => minorToFranks(toMinorCeil(a))

export const estimate = (
  catalog: Catalog,
  req: EstimateRequest,
  discountPercent: number
): Either.Either<Quote, EstimateRejected> => {
  assertDiscount(discountPercent)
  return Either.map(validateRequest(catalog, req), (resolved) => {
    const { model, op, mode, resolution, quality } = resolved
    const base = basePrice(resolved, req)
    let amount = base.amount
    const steps: QuoteStep[] = [{ step: "base", description: base.description, subtotalFranks: franksOf(amount) }]

    const applyMultiplier = (step: "mode" | "resolution" | "quality", name: string, bp: number | undefined) => {
      if (bp === undefined) return
      amount = multiply(amount, bp, BP_ONE)
      steps.push({ step, description: `${step} ${name}`, multiplier: bp / BP_ONE, subtotalFranks: franksOf(amount) })
    }
    applyMultiplier("mode", mode, op.modes[mode])
    if (resolution !== null) applyMultiplier("resolution", resolution, op.resolutions?.[resolution])
    if (quality !== null) applyMultiplier("quality", quality, op.qualities?.[quality])

    const outputs = req.imageOutputCount ?? 1
    if (op.outputCountMultiplies === true && outputs > 1) {
      amount = multiply(amount, outputs)
      steps.push({
        step: "outputs",
        description: `${outputs} images per request (n)`,
        multiplier: outputs,
        subtotalFranks: franksOf(amount)
      })
    }

    const surcharge = (
      step: QuoteStep["step"],
      description: string,
      count: number | undefined,
      micros: number | undefined
    ) => {
      if (count === undefined || count === 0 || micros === undefined) return
      const added = count * micros // ≤ 30 × 10^12: a safe integer
      amount = addMicros(amount, added)
      steps.push({ step, description, amountFranks: franksOf(fromMicros(added)), subtotalFranks: franksOf(amount) })
    }
    surcharge("inputImages", `${req.imageCount} input image(s)`, req.imageCount, op.inputImageMicros)
    surcharge(
      "referenceImages",
      `${req.referenceImageCount} reference image(s)`,
      req.referenceImageCount,
      op.referenceImageMicros
    )
    surcharge(
      "referenceVideos",
      `${req.referenceVideoCount} reference video(s)`,
      req.referenceVideoCount,
      op.referenceVideoMicros
    )
    surcharge(
      "referenceAudios",
      `${req.referenceAudioCount} reference audio(s)`,
      req.referenceAudioCount,
      op.referenceAudioMicros
    )
    if (op.voiceMicros !== undefined && req.prompt !== undefined && VOICE_MARKUP.test(req.prompt)) {
      // Voices in the launch voice list; without voiceCount, the distinct voices the markup names.
      const voices = req.voiceCount ?? markupVoiceCount(req.prompt)
      surcharge("voices", `${voices} voice(s), prompt has <<<voice_N>>> markup`, voices, op.voiceMicros)
    }

    const baseMinor: Minor = toMinorCeil(amount)
    const totalMinor: Minor = toMinorCeil(multiply(amount, 100 - discountPercent, 100))
    const discountMinor: Minor = baseMinor - totalMinor
    if (discountPercent > 0)
      steps.push({
        step: "discount",
        description: `tariff discount ${discountPercent}%`,
        amountFranks: discountMinor === 0 ? 0 : minorToFranks(-discountMinor),
        subtotalFranks: minorToFranks(totalMinor)
      })
    return {
      modelId: model.modelId,
      operation: op.operation,
      mode,
      resolution,
      quality,
      billingUnit: op.billingUnit,
      units: base.units,
      tokens: base.tokens,
      pricePerUnitFranks: microsToFranks(op.pricePerUnitMicros),
      breakdown: steps,
      baseFranks: minorToFranks(baseMinor),
      discountPercent,
      discountFranks: minorToFranks(discountMinor),
      totalFranks: minorToFranks(totalMinor),
      unitOfAccount: UNIT_OF_ACCOUNT
    }
  })
}
