/**
 * The estimate body schema: numeric strings coerced, unknown fields stripped, every range
 * violation reported at once with a message naming the constraint. The options come from the
 * schema's own annotation, exactly as HttpApi decodes it (with no options of its own).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { EstimateRequest } from "../src/pricing/EstimateRequest.js"

const decode = Schema.decodeUnknownEither(EstimateRequest)
const issues = (input: unknown) => {
  const r = decode(input)
  return Either.isRight(r)
    ? []
    : ParseResult.ArrayFormatter.formatErrorSync(r.left).map((i) => ({ path: i.path.join("."), message: i.message }))
}

describe("estimate request schema", () => {
  it("accepts the smallest request", () => expect(decode({ modelId: "m" })).toEqual(Either.right({ modelId: "m" })))

  it("coerces numeric strings in every integer field", () => {
    const fields = [
      "duration",
      "imageCount",
      "referenceImageCount",
      "referenceVideoCount",
      "referenceAudioCount",
      "imageOutputCount",
      "voiceCount"
    ]
    const input = Object.fromEntries([["modelId", "m"], ...fields.map((f) => [f, "5"])])
    expect(decode(input)).toEqual(Either.right(Object.fromEntries([["modelId", "m"], ...fields.map((f) => [f, 5])])))
  })

  it("strips unknown fields", () =>
    expect(decode({ modelId: "m", extra: true, url: "https://x" })).toEqual(Either.right({ modelId: "m" })))

  // [field, bad value, message]
  const violations: ReadonlyArray<readonly [string, unknown, string]> = [
    ["referenceImageCount", 31, "must be an integer between 0 and 30"],
    ["referenceVideoCount", 11, "must be an integer between 0 and 10"],
    ["referenceAudioCount", -1, "must be an integer between 0 and 10"],
    ["imageOutputCount", 0, "must be an integer between 1 and 9"],
    ["imageOutputCount", "10", "must be an integer between 1 and 9"],
    ["voiceCount", 11, "must be an integer between 0 and 10"],
    ["imageCount", 31, "must be an integer between 0 and 30"],
    ["duration", 0, "must be an integer between 1 and 86400"],
    ["duration", "5.5", "must be an integer"],
    ["duration", 2.5, "must be an integer"],
    ["duration", "five", "must be an integer"],
    ["prompt", "x".repeat(3001), "must be at most 3000 characters"],
    ["prompt", 42, "Expected string, actual 42"],
    ["resolution", "x".repeat(17), "must be at most 16 characters"],
    ["quality", "ultra", 'must be one of "low", "medium", "high"; got "ultra"'],
    ["modelId", "", "must not be empty"],
    ["mode", "m".repeat(65), "must be at most 64 characters"]
  ]
  for (const [field, value, message] of violations)
    it(`${field} = ${JSON.stringify(value).slice(0, 20)}: "${message}"`, () =>
      expect(issues({ modelId: "m", [field]: value })).toEqual([{ path: field, message }]))

  it("a missing modelId is named", () => expect(issues({})).toEqual([{ path: "modelId", message: "is missing" }]))

  it("three wrong fields give three messages at once", () => {
    expect(
      issues({ modelId: "m", imageOutputCount: 0, referenceVideoCount: 11, prompt: "x".repeat(3001), extra: true })
    ).toEqual([
      { path: "prompt", message: "must be at most 3000 characters" },
      { path: "referenceVideoCount", message: "must be an integer between 0 and 10" },
      { path: "imageOutputCount", message: "must be an integer between 1 and 9" }
    ])
  })

  it("every field wrong at once: one message per field", () => {
    const all = issues({
      referenceImageCount: 31,
      referenceVideoCount: 11,
      referenceAudioCount: -1,
      imageOutputCount: 0,
      voiceCount: 11,
      prompt: "x".repeat(3001),
      resolution: "x".repeat(17),
      quality: "ultra",
      duration: "5.5",
      imageCount: 31
    })
    expect(all.map((i) => i.path).sort()).toEqual(
      [
        "modelId",
        "duration",
        "imageCount",
        "imageOutputCount",
        "prompt",
        "quality",
        "referenceAudioCount",
        "referenceImageCount",
        "referenceVideoCount",
        "resolution",
        "voiceCount"
      ].sort()
    )
  })
})
