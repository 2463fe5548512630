/**
 * The scenario of webhook-simulation.test.ts without Effect: plain vitest and Promises through
 * `createFrankSimulation`. The engine runs on memory stores under a test clock, so the retry
 * schedule runs in milliseconds and attempt times are exact.
 * Run: `npx vitest run examples/webhook-simulation-promises.test.ts`.
 */
import { createFrankSimulation } from "@frank/host/embed/testing"
import { expect, it } from "vitest"

const T0 = Date.UTC(2026, 0, 1)
const partner = "6f1c1a52-5d1b-4c8e-9a3e-2b7d9f0c1e2a"
const task = "0b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b"

it("a settled charge reaches my receiver after two failed attempts", async () => {
  const sim = await createFrankSimulation({ start: T0 })
  try {
    // My receiver is down for the first two attempts, then answers 200.
    const url = "https://my-app.example/webhooks/frank"
    await sim.receiver.script(url, [503, "timeout", 200])
    const { secret } = await sim.endpoints.create(partner, { url, eventTypes: ["billing.settled"] })

    await sim.ledger.credit(partner, { kind: "topup", amountMinor: 500_000 })
    await sim.ledger.reserve(partner, { taskId: task, amountMinor: 20_000 })
    await sim.ledger.confirm(partner, { taskId: task, amountMinor: 15_000 })

    await sim.advance("1 hour")

    const attempts = await sim.receiver.received()
    expect(attempts.map((a) => (a.at - T0) / 60_000)).toEqual([0, 1, 6]) // minutes
    expect(attempts.map((a) => a.answer)).toEqual([503, "timeout", 200])
    expect(JSON.parse(attempts[2]?.body ?? "{}")).toMatchObject({
      eventType: "billing.settled",
      data: { taskId: task, amountFranks: 150 }
    })
    for (const attempt of attempts) expect(await sim.verifyReceived(attempt, secret)).toMatchObject({ ok: true })

    const { deliveries } = await sim.deliveries.list(partner)
    expect(deliveries.map((d) => [d.status, d.responseCodes])).toEqual([["delivered", [503, null, 200]]])
  } finally {
    await sim.close()
  }
})
