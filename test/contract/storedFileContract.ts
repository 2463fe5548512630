/**
 * The stored-file store contract: the same cases against memory, PGlite and PostgreSQL. Records
 * round-trip with exactly the measurements they were written with (absent ones stay absent),
 * partners see only their own files, and the serving read finds a file by id alone.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Files, Ids } from "@frank/core"
import { Effect, type Layer, Option, Schema } from "effect"
import { testPartner } from "@frank/core/testing"
import { StoredFileStore } from "@frank/core/stores"

const newId = () => Ids.StoredFileId.make(uuid())

const file = (partnerId: Ids.PartnerId, overrides: Partial<Files.StoredFile> = {}): Files.StoredFile => {
  const id = newId()
  return {
    id,
    partnerId,
    kind: "video",
    mimeType: "video/quicktime",
    sizeBytes: 104_857_600,
    measurements: { width: 1920, height: 1080, durationSeconds: 2.002, fps: 29.97 },
    blobKey: `${partnerId}/${id}`,
    createdAt: Date.UTC(2026, 10, 1, 10, 0, 0),
    ...overrides
  }
}

export const storedFileContract = (
  engine: string,
  stores: Layer.Layer<StoredFileStore | Files.StoredFileLookup, unknown>
) => {
  layer(stores, { timeout: 120_000 })(`stored files on ${engine}`, (it) => {
    it.effect("round-trips every kind with exactly its measurements", () =>
      Effect.gen(function* () {
        const store = yield* StoredFileStore
        const partner = testPartner(`p_${uuid()}`)
        const files = [
          file(partner),
          file(partner, {
            kind: "image",
            mimeType: "image/jpeg",
            sizeBytes: 9159,
            measurements: { width: 240, height: 320 }
          }),
          file(partner, {
            kind: "audio",
            mimeType: "audio/mpeg",
            sizeBytes: 44731,
            measurements: { durationSeconds: 5.042 }
          }),
          file(partner, {
            kind: "document",
            mimeType: "application/pdf",
            sizeBytes: 3229,
            measurements: { pageCount: 3 }
          }),
          file(partner, { kind: "document", mimeType: "text/markdown", sizeBytes: 0, measurements: {} })
        ]
        for (const f of files) yield* store.insert(f)
        for (const f of files) {
          expect(yield* store.get(partner, f.id)).toEqual(f)
          expect(yield* store.findForServing(f.id)).toEqual(f)
        }
      })
    )

    it.effect("a foreign, unknown or malformed id behaves like a missing one", () =>
      Effect.gen(function* () {
        const store = yield* StoredFileStore
        const lookup = yield* Files.StoredFileLookup
        const mine = file(testPartner(`p_${uuid()}`))
        yield* store.insert(mine)
        const other = testPartner(`p_${uuid()}`)
        expect(yield* store.get(other, mine.id)).toBeUndefined()
        expect(yield* store.get(mine.partnerId, newId())).toBeUndefined()
        expect(yield* store.findForServing(newId())).toBeUndefined()
        // Malformed ids name nothing: decoded at the edge, they never reach a store.
        expect(Ids.parseId(Ids.StoredFileId)("not-a-uuid")).toEqual(Option.none())
        expect(Ids.parseId(Ids.StoredFileId)("'; DROP TABLE stored_files; --")).toEqual(Option.none())
        // The lookup generation tasks use is the same store.
        expect(yield* lookup.owns(mine.partnerId, mine.id)).toBe(true)
        expect(yield* lookup.owns(mine.partnerId, Schema.decodeSync(Ids.StoredFileId)(mine.id.toUpperCase()))).toBe(
          true
        )
        expect(yield* lookup.owns(other, mine.id)).toBe(false)
        expect(yield* lookup.owns(mine.partnerId, newId())).toBe(false)
        expect(Ids.parseId(Ids.StoredFileId)("x")).toEqual(Option.none())
      })
    )

    it.effect("refuses a second record with the same id", () =>
      Effect.gen(function* () {
        const store = yield* StoredFileStore
        const f = file(testPartner(`p_${uuid()}`))
        yield* store.insert(f)
        const again = yield* Effect.either(store.insert({ ...f, sizeBytes: 1 }))
        expect(again._tag).toBe("Left")
        expect((yield* store.get(f.partnerId, f.id))?.sizeBytes).toBe(f.sizeBytes)
      })
    )
  })
}
