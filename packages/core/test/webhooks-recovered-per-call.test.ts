/** How many deliveries one recovery call requeues: the setting, held to 1..MAX_RECOVERED_PER_CALL. */
import { describe, expect, it } from "@effect/vitest"
import { MAX_RECOVERED_PER_CALL } from "../src/webhooks/recoveryWindow.js"
import { recoveredPerCall } from "../src/webhooks/WebhookSettings.js"

describe("recoveredPerCall", () => {
  const of = (recovered?: number) => recoveredPerCall({ allowPrivateNetwork: false, recoveredPerCall: recovered })

  it("is the most a call may take when unset, and the setting within bounds", () => {
    expect(of()).toBe(MAX_RECOVERED_PER_CALL)
    expect(of(1)).toBe(1)
    expect(of(250)).toBe(250)
  })

  it("holds an embedder's setting out of bounds to them: never none a call, never above the most", () => {
    expect(of(0)).toBe(1)
    expect(of(-5)).toBe(1)
    expect(of(2.7)).toBe(2)
    expect(of(MAX_RECOVERED_PER_CALL + 1)).toBe(MAX_RECOVERED_PER_CALL)
  })
})
