/**
 * The catalog resource (`GET /v1/billing/pricing/catalog`, spec "Price catalog item"): items
 * grouped by media family, each operation with its billing unit, list price, price at the
 * caller's tariff and every rule an estimate applies, so a client can price offline. Each item
 * carries `unitOfAccount: "Франки"` and its deprecated alias `currency`.
 */
import { Schema } from "effect"
import { BP_ONE, type Catalog, Family, type Model, type Operation } from "./Catalog.js"
import { MAX_IMAGE_COUNT } from "./EstimateRequest.js"
import { fromMicros, microsToFranks, multiply, toMicrosCeil } from "./internal/ExactAmount.js"
import { UNIT_OF_ACCOUNT } from "./Quote.js"

const Multiplier = Schema.Number.annotations({ description: "Factor applied to the price (1.5 = ×1.5)" })
const Choice = Schema.Struct({ name: Schema.String, multiplier: Multiplier, isDefault: Schema.Boolean })

const PerItem = Schema.Number.annotations({ description: "₣ per item, list price" })
const Surcharges = Schema.Struct({
  inputImage: Schema.optional(PerItem),
  referenceImage: Schema.optional(PerItem),
  referenceVideo: Schema.optional(PerItem),
  referenceAudio: Schema.optional(PerItem),
  voice: Schema.optional(
    PerItem.annotations({ description: "₣ per voice; only when the prompt contains <<<voice_N>>> markup" })
  )
}).annotations({ description: "Per-request surcharges; an absent key means the operation does not take that input" })

/** One operation of a catalog model as the partner API shows it. */
export const CatalogOperationView = Schema.Struct({
  operation: Schema.String,
  isDefault: Schema.Boolean.annotations({ description: "Used when an estimate names no operation" }),
  billingUnit: Schema.String,
  pricePerUnit: Schema.Number.annotations({ description: "Base list price, ₣ per billing unit (up to 6 decimals)" }),
  pricePerUnitAtTariff: Schema.Number.annotations({
    description: "The same at the caller's tariff discount, rounded up to a micro-frank"
  }),
  modes: Schema.Array(Choice),
  resolutions: Schema.NullOr(Schema.Array(Choice)),
  qualities: Schema.NullOr(Schema.Array(Choice)),
  duration: Schema.NullOr(
    Schema.Struct({
      minSeconds: Schema.Number,
      maxSeconds: Schema.Number,
      defaultSeconds: Schema.NullOr(Schema.Number),
      required: Schema.Boolean
    })
  ).annotations({ description: "Range of `duration`, seconds; null when the operation is not priced by time" }),
  minimumTokens: Schema.NullOr(Schema.Number).annotations({
    description: "Token-priced operations: the fewest tokens billed"
  }),
  maxInputImages: Schema.NullOr(Schema.Number),
  surcharges: Surcharges,
  imageOutputCountMultiplies: Schema.Boolean,
  promptRequired: Schema.Boolean
}).annotations({ identifier: "CatalogOperation" })
export type CatalogOperationView = typeof CatalogOperationView.Type

/** One model of the catalog as the partner API shows it. */
export const CatalogItem = Schema.Struct({
  modelId: Schema.String,
  title: Schema.String,
  family: Family,
  deprecated: Schema.Boolean,
  unitOfAccount: Schema.Literal(UNIT_OF_ACCOUNT),
  currency: Schema.Literal(UNIT_OF_ACCOUNT).annotations({
    description: "Deprecated alias of unitOfAccount; will be removed"
  }),
  operations: Schema.Array(CatalogOperationView)
}).annotations({ identifier: "CatalogItem" })
export type CatalogItem = typeof CatalogItem.Type

/** The catalog as the partner API shows it. */
export const CatalogView = Schema.Struct({
  refreshAfterSeconds: Schema.Number.annotations({ description: "Re-reading the catalog this often suffices" }),
  unitOfAccount: Schema.Literal(UNIT_OF_ACCOUNT),
  discountPercent: Schema.Number.annotations({
    description: "The caller's tariff discount used for pricePerUnitAtTariff"
  }),
  families: Schema.Struct({
    video: Schema.Array(CatalogItem),
    image: Schema.Array(CatalogItem),
    audio: Schema.Array(CatalogItem),
    text: Schema.Array(CatalogItem),
    processing: Schema.Array(CatalogItem)
  })
}).annotations({ identifier: "Catalog" })
export type CatalogView = typeof CatalogView.Type

const choices = (table: Readonly<Record<string, number | undefined>> | undefined, fallback: string | undefined) =>
  table === undefined
    ? null
    : Object.entries(table).flatMap(([name, bp]) =>
        bp === undefined ? [] : [{ name, multiplier: bp / BP_ONE, isDefault: name === fallback }]
      )

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const surchargesOf = (o: Operation): CatalogOperationView["surcharges"] => {
  const s: Mutable<CatalogOperationView["surcharges"]> = {}
  if (o.inputImageMicros !== undefined) s.inputImage = microsToFranks(o.inputImageMicros)
  if (o.referenceImageMicros !== undefined) s.referenceImage = microsToFranks(o.referenceImageMicros)
  if (o.referenceVideoMicros !== undefined) s.referenceVideo = microsToFranks(o.referenceVideoMicros)
  if (o.referenceAudioMicros !== undefined) s.referenceAudio = microsToFranks(o.referenceAudioMicros)
  if (o.voiceMicros !== undefined) s.voice = microsToFranks(o.voiceMicros)
  return s
}

const operationView = (o: Operation, isDefault: boolean, discountPercent: number): CatalogOperationView => {
  const m = o.metering
  return {
    operation: o.operation,
    isDefault,
    billingUnit: o.billingUnit,
    pricePerUnit: microsToFranks(o.pricePerUnitMicros),
    pricePerUnitAtTariff: microsToFranks(
      toMicrosCeil(multiply(fromMicros(o.pricePerUnitMicros), 100 - discountPercent, 100))
    ),
    modes: choices(o.modes, o.defaultMode) ?? [],
    resolutions: choices(o.resolutions, o.defaultResolution),
    qualities: choices(o.qualities, o.defaultQuality),
    duration:
      m.kind === "seconds"
        ? { minSeconds: m.minSeconds, maxSeconds: m.maxSeconds, defaultSeconds: m.defaultSeconds, required: false }
        : m.kind === "minutes"
          ? { minSeconds: 1, maxSeconds: m.maxSeconds, defaultSeconds: null, required: true }
          : null,
    minimumTokens: m.kind === "tokens" ? m.minimumTokens : null,
    maxInputImages: o.inputImageMicros === undefined ? null : (o.maxInputImages ?? MAX_IMAGE_COUNT),
    surcharges: surchargesOf(o),
    imageOutputCountMultiplies: o.outputCountMultiplies === true,
    promptRequired: o.promptRequired === true
  }
}

const itemView = (m: Model, discountPercent: number): CatalogItem => ({
  modelId: m.modelId,
  title: m.title,
  family: m.family,
  deprecated: m.deprecated === true,
  unitOfAccount: UNIT_OF_ACCOUNT,
  currency: UNIT_OF_ACCOUNT,
  operations: m.operations.map((o, i) => operationView(o, i === 0, discountPercent))
})

/** The catalog at a tariff discount (integer percent 0..100). Pure. */
export const catalogView = (catalog: Catalog, discountPercent: number): CatalogView => {
  const inFamily = (f: Family) => catalog.models.filter((m) => m.family === f).map((m) => itemView(m, discountPercent))
  return {
    refreshAfterSeconds: catalog.refreshAfterSeconds,
    unitOfAccount: UNIT_OF_ACCOUNT,
    discountPercent,
    families: {
      video: inFamily("video"),
      image: inFamily("image"),
      audio: inFamily("audio"),
      text: inFamily("text"),
      processing: inFamily("processing")
    }
  }
}
