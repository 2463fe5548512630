import { describe, expect, it } from "@effect/vitest"
import { defaultRateLimitConfig, rulesFor } from "../src/ratelimit/RateLimitPolicy.js"
import { testPartner } from "@frank/core/testing"

const names = (method: string, route: string) =>
  rulesFor(
    { method, route, ip: "203.0.113.7", apiKeyId: "key-1", partnerId: testPartner("p1") },
    defaultRateLimitConfig
  ).map((r) => r.name)

describe("rate limits of generation tasks", () => {
  it("task routes count per IP only: the per-key billing limit is not carried over to launching generation", () => {
    expect(names("POST", "/v1/tasks")).toEqual(["ip_method"])
    expect(names("GET", "/v1/tasks")).toEqual(["ip_method"])
    expect(names("GET", "/v1/tasks/:id")).toEqual(["ip_method"])
    expect(names("GET", "/v1/tasks/:id/result")).toEqual(["ip_method"])
    // The billing routes of the same key do share the per-key counter.
    expect(names("GET", "/v1/billing/balance")).toEqual(["ip_method", "api_key"])
  })
})
