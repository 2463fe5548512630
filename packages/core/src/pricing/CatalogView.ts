/**
 * The catalog resource (spec "Price catalog item"): items grouped by family, each with billing
 * units, `unitOfAccount: "Франки"` and its deprecated alias `currency`.
 */
import { Schema } from "effect"
import { type Catalog, Family, families } from "./Catalog.js"

const UNIT_OF_ACCOUNT = "Франки" as const

const OperationView = Schema.Struct({
  operation: Schema.String,
  billingUnit: Schema.String,
  pricePerUnit: Schema.Number.annotations({ description: "Base price list, ₣ per billing unit (up to 6 decimals)" }),
  pricePerUnitAtTariff: Schema.Number.annotations({ description: "The same at the caller's tariff discount" }),
  modes: Schema.Array(Schema.Struct({ mode: Schema.String, multiplier: Schema.Number })),
  resolutions: Schema.NullOr(Schema.Array(Schema.Struct({ resolution: Schema.String, multiplier: Schema.Number }))),
  qualities: Schema.NullOr(Schema.Array(Schema.Struct({ quality: Schema.String, multiplier: Schema.Number }))),
  duration: Schema.NullOr(Schema.Struct({ minSeconds: Schema.Number, maxSeconds: Schema.Number })),
  surcharges: Schema.Record({ key: Schema.String, value: Schema.Number }).annotations({ description: "₣ per item" }),
  imageOutputCountMultiplies: Schema.Boolean,
  promptRequired: Schema.Boolean
})

export const CatalogItem = Schema.Struct({
  modelId: Schema.String,
  title: Schema.String,
  family: Family,
  deprecated: Schema.Boolean,
  unitOfAccount: Schema.Literal(UNIT_OF_ACCOUNT),
  currency: Schema.Literal(UNIT_OF_ACCOUNT).annotations({ description: "Deprecated alias of unitOfAccount; will be removed" }),
  operations: Schema.Array(OperationView)
}).annotations({ identifier: "CatalogItem" })

export const CatalogView = Schema.Struct({
  refreshAfterSeconds: Schema.Number,
  unitOfAccount: Schema.Literal(UNIT_OF_ACCOUNT),
  discountPercent: Schema.Number,
  families: Schema.Struct({
    video: Schema.Array(CatalogItem),
    image: Schema.Array(CatalogItem),
    audio: Schema.Array(CatalogItem),
    text: Schema.Array(CatalogItem),
    processing: Schema.Array(CatalogItem)
  })
}).annotations({ identifier: "Catalog" })
export type CatalogView = typeof CatalogView.Type

const perFrank = (micros: number) => micros / 1_000_000
const bp = (m: Readonly<Record<string, number | undefined>>) =>
  Object.entries(m).flatMap(([k, v]) => (v === undefined ? [] : [[k, v / 10_000] as const]))

export const catalogView = (catalog: Catalog, discountPercent: number): CatalogView => {
  const item = (m: Catalog["models"][number]) => ({
    modelId: m.modelId,
    title: m.title,
    family: m.family,
    deprecated: m.deprecated === true,
    unitOfAccount: UNIT_OF_ACCOUNT,
    currency: UNIT_OF_ACCOUNT,
    operations: m.operations.map((o) => {
      const surcharges: Record<string, number> = {}
      if (o.inputImageMicros !== undefined) surcharges.inputImage = perFrank(o.inputImageMicros)
      if (o.referenceImageMicros !== undefined) surcharges.referenceImage = perFrank(o.referenceImageMicros)
      if (o.referenceVideoMicros !== undefined) surcharges.referenceVideo = perFrank(o.referenceVideoMicros)
      if (o.referenceAudioMicros !== undefined) surcharges.referenceAudio = perFrank(o.referenceAudioMicros)
      if (o.voiceMicros !== undefined) surcharges.voice = perFrank(o.voiceMicros)
      return {
        operation: o.operation,
        billingUnit: o.billingUnit,
        pricePerUnit: perFrank(o.pricePerUnitMicros),
        // Micro-franks stay integers: the discounted unit price is rounded up to a whole micro.
        pricePerUnitAtTariff: perFrank(Math.ceil((o.pricePerUnitMicros * (100 - discountPercent)) / 100)),
        modes: bp(o.modes).map(([mode, multiplier]) => ({ mode, multiplier })),
        resolutions: o.resolutions === undefined ? null : bp(o.resolutions).map(([resolution, multiplier]) => ({ resolution, multiplier })),
        qualities: o.qualities === undefined ? null : bp(o.qualities).map(([quality, multiplier]) => ({ quality, multiplier })),
        duration:
          o.metering.kind === "seconds"
            ? { minSeconds: o.metering.minSeconds, maxSeconds: o.metering.maxSeconds }
            : o.metering.kind === "minutes"
              ? { minSeconds: 1, maxSeconds: o.metering.maxSeconds }
              : null,
        surcharges,
        imageOutputCountMultiplies: o.outputCountMultiplies === true,
        promptRequired: o.promptRequired === true
      }
    })
  })
  const byFamily = Object.fromEntries(families.map((f) => [f, catalog.models.filter((m) => m.family === f).map(item)])) as unknown as CatalogView["families"]
  return { refreshAfterSeconds: catalog.refreshAfterSeconds, unitOfAccount: UNIT_OF_ACCOUNT, discountPercent, families: byFamily }
}
