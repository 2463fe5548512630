import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer, Schema } from "effect"
import {
  DeliveryId,
  EndpointId,
  Ids,
  InvoiceId,
  KeyId,
  PartnerId,
  PaymentId,
  StoredFileId,
  TaskId
} from "../src/Ids.js"

const kinds = [PartnerId, KeyId, EndpointId, DeliveryId, TaskId, InvoiceId, PaymentId, StoredFileId] as const

// The brand Ids.nextId gives without decoding must be one the schema would give: every id it
// issues decodes to itself under its kind's schema.
const issuesValidIds = (layer: Layer.Layer<Ids>) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    // Every entity brand is a lowercase UUID (EntityIds.ts).
    for (const kind of kinds) {
      const id: string = yield* ids.nextId(kind)
      expect(Schema.is(Schema.UUID)(id)).toBe(true)
      expect(id).toBe(id.toLowerCase())
    }
    const a = yield* ids.nextId(EndpointId)
    const b = yield* ids.nextId(EndpointId)
    expect(a).not.toBe(b)
    expect(Schema.decodeUnknownSync(EndpointId)(a)).toBe(a)
  }).pipe(Effect.provide(layer))

describe("Ids.nextId", () => {
  it.effect("issues ids every entity schema accepts, from the random generator", () => issuesValidIds(Ids.layer))
  it.effect("and from the deterministic one", () => issuesValidIds(Ids.layerDeterministic("ids-test")))

  it.effect("draws from the same sequence as next: a seed replays the same branded ids", () =>
    Effect.gen(function* () {
      const run = Effect.flatMap(Ids, (ids) => Effect.all([ids.nextId(TaskId), ids.next, ids.nextId(PartnerId)]))
      const first = yield* Effect.provide(run, Ids.layerDeterministic("replay"))
      const second = yield* Effect.provide(run, Ids.layerDeterministic("replay"))
      expect(second).toEqual(first)
      expect(new Set(first).size).toBe(3)
    })
  )
})
