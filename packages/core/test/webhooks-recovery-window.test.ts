/**
 * Bulk recovery's window rule and instant parsing, and retention's settings checks: pure rules,
 * no store.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Layer } from "effect"
import * as MemoryWebhookStore from "../src/testing/webhooks/MemoryWebhookStore.js"
import { parseInstant, recoveryWindow } from "../src/webhooks/recoveryWindow.js"
import { WebhookRetention } from "../src/webhooks/WebhookRetention.js"
import { WebhookSettings } from "../src/webhooks/WebhookSettings.js"

const DAY = 86_400_000
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0)
const KEEP = 30 * DAY

const messages = (since: string, until?: string) =>
  Either.match(recoveryWindow(until === undefined ? { since } : { since, until }, NOW, KEEP), {
    onLeft: (e) => e.messages,
    onRight: () => []
  })

describe("parseInstant", () => {
  it("takes dates (midnight UTC) and date-times with a zone", () => {
    expect(parseInstant("2026-11-01")).toBe(Date.UTC(2026, 10, 1))
    expect(parseInstant("2026-11-01T10:00Z")).toBe(Date.UTC(2026, 10, 1, 10))
    expect(parseInstant("2026-11-01T10:00:00.250Z")).toBe(Date.UTC(2026, 10, 1, 10, 0, 0, 250))
    expect(parseInstant("2026-11-01T13:00:00+03:00")).toBe(Date.UTC(2026, 10, 1, 10))
    expect(parseInstant("2026-11-01T05:30:00-04:30")).toBe(Date.UTC(2026, 10, 1, 10))
  })

  it("refuses what is not one instant: no zone, impossible calendar fields, other formats", () => {
    for (const text of [
      "2026-11-01T10:00:00",
      "2026-02-31",
      "2026-02-29T00:00:00Z",
      "2026-13-01",
      "2026-11-01T24:00:00Z",
      "2026-11-01T10:60:00Z",
      "2026-11-01T10:00:00+25:00",
      "1 Nov 2026",
      "1793577600000",
      " 2026-11-01",
      ""
    ])
      expect(parseInstant(text), text).toBeUndefined()
    expect(parseInstant("2028-02-29T00:00:00Z")).toBe(Date.UTC(2028, 1, 29))
  })
})

describe("recoveryWindow", () => {
  it("is [since, until), until defaulting to now", () => {
    expect(recoveryWindow({ since: "2026-11-19" }, NOW, KEEP)).toEqual(
      Either.right({ since: Date.UTC(2026, 10, 19), until: NOW })
    )
    expect(recoveryWindow({ since: "2026-11-06T12:00:00Z", until: "2026-11-20" }, NOW, KEEP)).toEqual(
      Either.right({ since: Date.UTC(2026, 10, 6, 12), until: Date.UTC(2026, 10, 20) })
    )
  })

  it("lists every broken rule at once", () => {
    expect(messages("soon", "later")).toEqual([
      expect.stringMatching(/^since: must be an ISO 8601 date-time with a time zone/),
      expect.stringMatching(/^until: must be an ISO 8601 date-time with a time zone/)
    ])
    expect(messages("2026-10-01", "2026-10-20")).toEqual([
      "since: must not be before 2026-10-21T12:00:00.000Z: deliveries are kept for 30 days, older ones are gone",
      "the window from since to until must not exceed 14 days"
    ])
    expect(messages("2026-10-01", "nope")).toEqual([
      expect.stringMatching(/^until: must be/),
      expect.stringMatching(/^since: must not be before/)
    ])
    expect(messages("2026-11-20T12:00:00Z")).toEqual(["since: must be in the past"])
    expect(messages("2026-11-19", "2026-11-18")).toEqual(["since: must be before until"])
    expect(messages("2026-11-19", "2026-11-19")).toEqual(["since: must be before until"])
  })

  it("gives each broken rule a code beside its line, with the figures a page words", () => {
    const issues = (since: string, until?: string) =>
      Either.match(recoveryWindow(until === undefined ? { since } : { since, until }, NOW, KEEP), {
        onLeft: (e) => e.issues.map(({ message: _, ...coded }) => coded),
        onRight: () => []
      })
    expect(issues("soon", "later")).toEqual([{ code: "RECOVERY_SINCE_FORMAT" }, { code: "RECOVERY_UNTIL_FORMAT" }])
    expect(issues("2026-10-01", "2026-10-20")).toEqual([
      { code: "RECOVERY_SINCE_TOO_OLD", days: 30, at: "2026-10-21T12:00:00.000Z" },
      { code: "RECOVERY_WINDOW_TOO_LONG", days: 14 }
    ])
    expect(issues("2026-11-20T12:00:00Z")).toEqual([{ code: "RECOVERY_SINCE_NOT_PAST" }])
    expect(issues("2026-11-19", "2026-11-18")).toEqual([{ code: "RECOVERY_SINCE_NOT_BEFORE_UNTIL" }])
  })

  it("accepts a window of exactly 14 days starting exactly at the retention horizon", () => {
    const since = new Date(NOW - KEEP).toISOString()
    const until = new Date(NOW - KEEP + 14 * DAY).toISOString()
    expect(messages(since, until)).toEqual([])
    expect(messages(since, new Date(NOW - KEEP + 14 * DAY + 1).toISOString())).toEqual([
      "the window from since to until must not exceed 14 days"
    ])
    expect(messages(new Date(NOW - KEEP - 1).toISOString(), new Date(NOW - KEEP + DAY).toISOString())).toEqual([
      "since: must not be before 2026-10-21T12:00:00.000Z: deliveries are kept for 30 days, older ones are gone"
    ])
  })
})

describe("WebhookRetention settings", () => {
  const build = (retentionDays: number | undefined, config: { sweepIntervalMs: number; batchSize: number }) =>
    Effect.exit(
      Effect.scoped(
        Layer.build(
          WebhookRetention.layer(config).pipe(
            Layer.provide(MemoryWebhookStore.layer),
            Layer.provide(WebhookSettings.layer({ allowPrivateNetwork: false, retentionDays }))
          )
        )
      )
    )

  it.effect("refuses a batch over 1,000 rows, an empty interval and a retention under a day", () =>
    Effect.gen(function* () {
      expect(Exit.isSuccess(yield* build(undefined, { sweepIntervalMs: 60_000, batchSize: 1_000 }))).toBe(true)
      expect(Exit.isSuccess(yield* build(1, { sweepIntervalMs: 1, batchSize: 1 }))).toBe(true)
      for (const [days, config] of [
        [undefined, { sweepIntervalMs: 60_000, batchSize: 1_001 }],
        [undefined, { sweepIntervalMs: 60_000, batchSize: 0 }],
        [undefined, { sweepIntervalMs: 0, batchSize: 10 }],
        [0, { sweepIntervalMs: 60_000, batchSize: 10 }],
        [1.5, { sweepIntervalMs: 60_000, batchSize: 10 }]
      ] as const)
        expect(Exit.isFailure(yield* build(days, config)), JSON.stringify([days, config])).toBe(true)
    })
  )
})
