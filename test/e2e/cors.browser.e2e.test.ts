/**
 * CORS with FRANK_CORS_ORIGINS: the host answers a listed origin's preflight and lets its scripts
 * read the fields a client acts on (RateLimit, RateLimit-Policy, Idempotent-Replayed,
 * X-Request-Id), checked with fetch and from a page in Chromium; an origin not listed gets no
 * Access-Control-Allow-Origin, so its browser refuses the answer.
 */
import { createServer, type IncomingMessage, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Browser } from "playwright-core"
import { describeBrowser } from "../support/browser.js"
import { useBrowser } from "./cabinet/browserHost.js"
import { advanceClock, hostNow, issueKey, keyHeaders, newPartner, type Partner } from "./hostClient.js"
import { type RunningHost, spawnHost } from "./spawnHost.js"

/** A page server: its origin is the one the host lists (or not). */
const pageServer = async (): Promise<{ server: Server; origin: string }> => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>client</title>")
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

let host: RunningHost
let listed: Awaited<ReturnType<typeof pageServer>>
let unlisted: Awaited<ReturnType<typeof pageServer>>
let partner: Partner
beforeAll(async () => {
  listed = await pageServer()
  unlisted = await pageServer()
  host = await spawnHost({
    FRANK_CORS_ORIGINS: `https://app.example.com, ${listed.origin}`,
    FRANK_SANDBOX_CLOCK: "true"
  })
  partner = await newPartner(host, "Cors LLC")
}, 120_000)
afterAll(async () => {
  await host?.stop()
  listed?.server.close()
  unlisted?.server.close()
})

const preflight = (origin: string, path: string) =>
  fetch(`${host.baseUrl}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, idempotency-key, x-api-key"
    }
  })

const exposed = (res: Response) =>
  (res.headers.get("access-control-expose-headers") ?? "").split(",").map((h) => h.trim().toLowerCase())

describe("CORS for listed origins", { timeout: 60_000 }, () => {
  it("a listed origin's preflight is allowed with the API's headers; an unlisted one is not", async () => {
    const ok = await preflight(listed.origin, "/v1/billing/alerts")
    expect(ok.status).toBe(204)
    expect(ok.headers.get("access-control-allow-origin")).toBe(listed.origin)
    expect(ok.headers.get("access-control-allow-methods")).toContain("POST")
    const allowedHeaders = (ok.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",")
    expect(allowedHeaders).toEqual(expect.arrayContaining(["content-type", "idempotency-key", "x-api-key"]))
    expect(ok.headers.get("access-control-allow-credentials")).toBeNull()
    const other = await preflight(unlisted.origin, "/v1/billing/alerts")
    expect(other.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("answers name the listed origin and expose RateLimit, RateLimit-Policy and Idempotent-Replayed", async () => {
    const send = (origin: string) =>
      fetch(`${host.baseUrl}/v1/billing/alerts`, {
        method: "POST",
        headers: {
          origin,
          "x-api-key": partner.key["x-api-key"]!,
          "content-type": "application/json",
          "idempotency-key": "cors-fetch"
        },
        body: JSON.stringify({ thresholdFranks: 25 })
      })
    const first = await send(listed.origin)
    expect(first.status, await first.clone().text()).toBe(201)
    expect(first.headers.get("access-control-allow-origin")).toBe(listed.origin)
    expect(exposed(first)).toEqual(
      expect.arrayContaining(["ratelimit", "ratelimit-policy", "retry-after", "idempotent-replayed", "x-request-id"])
    )
    const again = await send(unlisted.origin)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.headers.get("access-control-allow-origin")).toBeNull()
  })
})

/** A POST declaring a 2 MiB body it never sends (fetch cannot declare a length of its own). */
const declaredTooLarge = (origin: string) =>
  new Promise<IncomingMessage>((done, fail) => {
    const req = request(`${host.baseUrl}/v1/billing/alerts`, {
      method: "POST",
      headers: { origin, "content-type": "application/json", "content-length": String(2 * 1024 * 1024) }
    })
    req.on("response", (res) => {
      res.resume()
      done(res)
      req.destroy()
    })
    req.on("error", fail)
    req.flushHeaders()
  })

describe("CORS on refusals written before the API's stack", { timeout: 60_000 }, () => {
  const named = (res: Response) => res.headers.get("access-control-allow-origin")

  it("a 413 and a 415 decided from the headers name the listed origin, and only it", async () => {
    const send = (origin: string, headers: Record<string, string>) =>
      fetch(`${host.baseUrl}/v1/billing/alerts`, {
        method: "POST",
        headers: { origin, "x-api-key": partner.key["x-api-key"]!, ...headers },
        body: "{}"
      })
    // Declared over the 1 MiB limit: refused from its headers, before any body is sent.
    const tooLarge = await declaredTooLarge(listed.origin)
    expect(tooLarge.statusCode).toBe(413)
    expect(tooLarge.headers["access-control-allow-origin"]).toBe(listed.origin)
    expect(String(tooLarge.headers["access-control-expose-headers"]).toLowerCase()).toContain("x-request-id")
    expect((await declaredTooLarge(unlisted.origin)).headers["access-control-allow-origin"]).toBeUndefined()
    const multipart = { "content-type": "multipart/form-data; boundary=x" }
    const unsupported = await send(listed.origin, multipart)
    expect(unsupported.status).toBe(415)
    expect(named(unsupported)).toBe(listed.origin)
    const other = await send(unlisted.origin, multipart)
    expect(other.status).toBe(415)
    expect(named(other)).toBeNull()
  })

  it("a key's early 429, answered before the API, names the listed origin with its RateLimit fields", async () => {
    const p = await newPartner(host, "Cors Flood LLC")
    const key = await issueKey(host, p.cookie)
    const ip = "198.51.100.77"
    // A fresh rate window on the host's clock, so the 60 requests below fall in one.
    await advanceClock(host, 60 - new Date(await hostNow(host)).getUTCSeconds())
    const balance = () =>
      fetch(`${host.baseUrl}/v1/billing/balance`, { headers: { ...keyHeaders(key.raw, ip), origin: listed.origin } })
    for (let i = 0; i < 60; i++) expect((await balance()).status).toBe(200)
    // The first refusal goes through the API; the next one is answered before it (early).
    expect((await balance()).status).toBe(429)
    const early = await balance()
    expect(early.status).toBe(429)
    expect(named(early)).toBe(listed.origin)
    expect(early.headers.get("ratelimit")).toMatch(/;r=0;/)
    expect(exposed(early)).toEqual(expect.arrayContaining(["ratelimit", "ratelimit-policy", "retry-after"]))
  })
})

describeBrowser("CORS from a page in Chromium", () => {
  let browser: Browser
  useBrowser((launched) => {
    browser = launched
  })

  /** Runs two keyed POSTs from a page of `origin`; answers what its script could read. */
  const fromPage = async (origin: string, key: string) => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(origin)
    const read = await page.evaluate(
      async ({ url, apiKey, key }) => {
        const post = async () => {
          const r = await fetch(url, {
            method: "POST",
            headers: { "x-api-key": apiKey, "content-type": "application/json", "idempotency-key": key },
            body: JSON.stringify({ thresholdFranks: 30 })
          })
          const fields = ["ratelimit", "ratelimit-policy", "idempotent-replayed", "x-request-id"]
          return { status: r.status, headers: Object.fromEntries(fields.map((f) => [f, r.headers.get(f)])) }
        }
        try {
          return { answers: [await post(), await post()] }
        } catch (e) {
          return { error: String(e) }
        }
      },
      { url: `${host.baseUrl}/v1/billing/alerts`, apiKey: partner.key["x-api-key"]!, key }
    )
    await context.close()
    return read
  }

  it("a listed origin's script reads the RateLimit fields and Idempotent-Replayed of a retry", async () => {
    const read = await fromPage(listed.origin, "cors-browser")
    expect(read.error).toBeUndefined()
    const [first, retry] = read.answers!
    expect(first?.status).toBe(201)
    expect(first?.headers.ratelimit).toMatch(/^"[a-z]+";r=\d+;t=\d+$/)
    expect(first?.headers["ratelimit-policy"]).toMatch(/"key";q=\d+;w=\d+/)
    expect(first?.headers["x-request-id"]).toMatch(/.+/)
    expect(first?.headers["idempotent-replayed"]).toBeNull()
    expect(retry?.status).toBe(201)
    expect(retry?.headers["idempotent-replayed"]).toBe("true")
  })

  it("an unlisted origin's script gets no answer at all", async () => {
    const read = await fromPage(unlisted.origin, "cors-unlisted")
    expect(read.error).toMatch(/Failed to fetch/)
  })
})
