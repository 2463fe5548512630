/**
 * One rule maps a concrete path to its HttpApi template, for the host's metric labels and the
 * media-type rule: literal routes exactly, a `:param` as exactly one non-empty segment, by method.
 */
import { PartnerApi, routeMatcher, templatePattern } from "@frank/core/http"
import { bodyOperations } from "../src/http/mediaType.js"
import { describe, expect, it } from "vitest"

describe("routeMatcher", () => {
  const match = routeMatcher(PartnerApi)

  it("maps literal and parameterised paths to their template, by method", () => {
    expect(match("GET", "/v1/billing/balance")).toBe("/v1/billing/balance")
    expect(match("GET", "/v1/webhooks/endpoints/ep_123")).toBe("/v1/webhooks/endpoints/:id")
    expect(match("POST", "/v1/webhooks/endpoints/ep_123/rotate-secret")).toBe(
      "/v1/webhooks/endpoints/:id/rotate-secret"
    )
    expect(match("POST", "/v1/billing/balance")).toBeUndefined()
    expect(match("GET", "/v1/webhooks/endpoints/a/b")).toBeUndefined()
    expect(match("GET", "/v1/webhooks/endpoints/")).toBeUndefined()
  })

  it("keeps only the endpoints `include` selects: bodyOperations is the matcher over body-taking ones", () => {
    const takesBody = bodyOperations(PartnerApi)
    expect(takesBody("PATCH", "/v1/webhooks/endpoints/ep_1")).toBe(true)
    expect(takesBody("GET", "/v1/webhooks/endpoints/ep_1")).toBe(false)
    expect(takesBody("POST", "/v1/billing/api-keys")).toBe(true)
  })

  it("escapes the template's other characters", () => {
    expect(templatePattern("/a.b/:id").test("/a.b/x")).toBe(true)
    expect(templatePattern("/a.b/:id").test("/aXb/x")).toBe(false)
  })
})
