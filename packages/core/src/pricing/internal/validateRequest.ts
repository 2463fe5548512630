/**
 * Checks an estimate request against the catalog and resolves the defaults (operation, mode,
 * resolution, quality). Every problem is collected, each naming its field and, for names, the
 * allowed values, so a partner fixes a request in one round trip.
 */
import { Either } from "effect"
import { type Catalog, findModel, type Model, type Operation, type Quality } from "../Catalog.js"
import type { EstimateRequest } from "../EstimateRequest.js"
import { ESTIMATE_CODES, EstimateRejected } from "../Quote.js"

export interface ResolvedRequest {
  readonly model: Model
  readonly op: Operation
  readonly mode: string
  readonly resolution: string | null
  readonly quality: Quality | null
}

const quoted = (s: string) => JSON.stringify(s)
const allowedOf = (xs: object | ReadonlyArray<string>) =>
  `allowed: ${(Array.isArray(xs) ? xs : Object.keys(xs)).join(", ")}`

const reject = (code: string, messages: ReadonlyArray<string>) =>
  Either.left(new EstimateRejected({ code, message: messages.join("; "), messages: [...messages] }))

/** A named choice (mode, resolution, quality): the requested or default value, checked against the allowed ones. */
const choose = (
  field: string,
  modelId: string,
  requested: string | undefined,
  allowed: object | undefined,
  fallback: string | undefined,
  problems: string[]
) => {
  if (allowed === undefined) {
    if (requested !== undefined) problems.push(`${field}: ${modelId} has no ${field} choice`)
    return null
  }
  const value = requested ?? fallback ?? null
  if (value === null || !Object.hasOwn(allowed, value)) {
    problems.push(
      `${field}: ${value === null ? "missing" : quoted(value)} is not offered by ${modelId}; ${allowedOf(allowed)}`
    )
    return null
  }
  return value
}

export const validateRequest = (
  catalog: Catalog,
  req: EstimateRequest
): Either.Either<ResolvedRequest, EstimateRejected> => {
  const model = findModel(catalog, req.modelId)
  if (model === undefined)
    return reject(ESTIMATE_CODES.modelUnknown, [
      `modelId: unknown model ${quoted(req.modelId)}; ${allowedOf(catalog.models.map((m) => m.modelId))}`
    ])
  const op =
    req.operation === undefined ? model.operations[0] : model.operations.find((o) => o.operation === req.operation)
  // Everything else depends on the operation, so an unknown one is the only thing worth saying.
  if (op === undefined)
    return reject(ESTIMATE_CODES.invalid, [
      `operation: ${quoted(req.operation ?? "")} is not offered by ${model.modelId}; ${allowedOf(model.operations.map((o) => o.operation))}`
    ])
  const id = model.modelId
  const problems: string[] = []
  const mode = choose("mode", id, req.mode, op.modes, op.defaultMode, problems)
  const resolution = choose("resolution", id, req.resolution, op.resolutions, op.defaultResolution, problems)
  const quality = choose("quality", id, req.quality, op.qualities, op.defaultQuality, problems) as Quality | null

  const m = op.metering
  if (m.kind === "seconds") {
    if (req.duration !== undefined && (req.duration < m.minSeconds || req.duration > m.maxSeconds))
      problems.push(`duration: must be between ${m.minSeconds} and ${m.maxSeconds} seconds for ${id}`)
  } else if (m.kind === "minutes") {
    if (req.duration === undefined)
      problems.push(`duration: required for ${id} (seconds of input, billed per started minute)`)
    else if (req.duration > m.maxSeconds) problems.push(`duration: must be at most ${m.maxSeconds} seconds for ${id}`)
  } else if (req.duration !== undefined) problems.push(`duration: ${id} is not priced by duration`)

  if (op.promptRequired === true && (req.prompt === undefined || req.prompt.trim().length === 0))
    problems.push(
      m.kind === "tokens" ? `prompt: required for ${id} (priced per 1K prompt tokens)` : `prompt: required for ${id}`
    )

  if (req.imageCount !== undefined && req.imageCount > 0) {
    if (op.inputImageMicros === undefined) problems.push(`imageCount: ${id} takes no input images`)
    else if (op.maxInputImages !== undefined && req.imageCount > op.maxInputImages)
      problems.push(`imageCount: must be at most ${op.maxInputImages} for ${id}`)
  }
  const references = [
    ["referenceImageCount", req.referenceImageCount, op.referenceImageMicros, "reference images"],
    ["referenceVideoCount", req.referenceVideoCount, op.referenceVideoMicros, "reference videos"],
    ["referenceAudioCount", req.referenceAudioCount, op.referenceAudioMicros, "reference audio"]
  ] as const
  for (const [field, count, price, what] of references)
    if (count !== undefined && count > 0 && price === undefined) problems.push(`${field}: ${id} takes no ${what}`)
  if (req.imageOutputCount !== undefined && req.imageOutputCount > 1 && op.outputCountMultiplies !== true)
    problems.push(`imageOutputCount: ${id} renders one output per request; must be 1`)
  if (req.voiceCount !== undefined && req.voiceCount > 0 && op.voiceMicros === undefined)
    problems.push(`voiceCount: ${id} has no voices`)

  if (problems.length > 0 || mode === null) return reject(ESTIMATE_CODES.invalid, problems)
  return Either.right({ model, op, mode, resolution, quality })
}
