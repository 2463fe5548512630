import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { EngineOnMemory, program } from "../examples/embedded-ledger.js"

it.effect("the embedded-ledger example settles below the hold and releases the rest", () =>
  Effect.gen(function* () {
    const r = yield* program
    // veo-3: 8 s × 4 ₣ = 32 ₣ + 2 voices × 3 ₣ = 38 ₣ held; charged 5 ₣ less.
    expect(r.quote).toBe(38)
    expect(r.settled).toMatchObject({ status: "confirmed", chargedMinor: 3_300, releasedMinor: 500 })
    expect(r.balance).toMatchObject({ total: 500, used: 33, reserved: 0, available: 467 })
    expect(r.rows[0]).toContain("refund/task_release 5 ₣")
  }).pipe(Effect.provide(EngineOnMemory))
)
