/**
 * The deliveries page cursor: opaque to partners, and only what this API issued decodes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { decodeCursor, encodeCursor } from "../src/webhooks/Delivery.js"

const encodeRaw = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

describe("delivery cursor", () => {
  it("decodes what it encoded", () => {
    const cursor = { createdAt: 1_767_225_600_123, id: "0b6c1c4e-8f1e-4b7a-9a39-3c1d2e4f5a6b" }
    expect(decodeCursor(encodeCursor(cursor))).toEqual(Either.right(cursor))
  })

  it("refuses an id that is not a UUID as issued, so no store is asked about it", () => {
    for (const id of [
      "-".repeat(36),
      "0B6C1C4E-8F1E-4B7A-9A39-3C1D2E4F5A6B",
      "0b6c1c4e8f1e4b7a9a393c1d2e4f5a6b----",
      "0b6c1c4e-8f1e-4b7a-9a39-3c1d2e4f5a6"
    ])
      expect(Either.isLeft(decodeCursor(encodeRaw(`1767225600123:${id}`))), id).toBe(true)
    expect(Either.isLeft(decodeCursor("bogus"))).toBe(true)
  })
})
