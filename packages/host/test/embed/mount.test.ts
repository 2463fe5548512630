/**
 * Frank mounted in the embedder's server under a base path: `frank.fetch` (Fetch API) and
 * `frank.node` in a real node:http server, the partner API answered with a key, the app's own
 * routes left to it, and the cabinet entered through `sessions.signInUrl`.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createFrank, type Frank } from "@frank/host/embed"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

describe("frank.fetch and frank.node under /billing", () => {
  let frank: Frank
  let server: Server
  let base: string
  let partnerId: string
  let key: string
  beforeAll(async () => {
    server = createServer((req, res) => frank.node(req, res, () => res.writeHead(200).end("the app's own route")))
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    frank = await createFrank({
      embedded: "memory",
      pepper: "test-pepper-0123456789abcdef",
      publicBaseUrl: base,
      basePath: "/billing"
    })
    partnerId = (await frank.partners.create("Mounted")).id
    await frank.ledger.credit(partnerId, { kind: "topup", amountMinor: 12_300 })
    key = (await frank.keys.issue(partnerId, {})).raw
  })
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise<void>((done) => server?.close(() => done()))
    await frank?.close()
  })

  it("fetch answers the partner API under the base path, 404 outside it", async () => {
    const ok = await frank.fetch(new Request(`${base}/billing/v1/billing/balance`, { headers: { "x-api-key": key } }))
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ available: 123 })
    const refused = await frank.fetch(new Request(`${base}/billing/v1/billing/balance`))
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ code: expect.any(String) })
    expect((await frank.fetch(new Request(`${base}/v1/billing/balance`))).status).toBe(404)
  })

  it("the Node mount serves the API in a real server and leaves other paths to the app", async () => {
    const balance = await fetch(`${base}/billing/v1/billing/balance`, { headers: { authorization: `Bearer ${key}` } })
    expect(balance.status).toBe(200)
    expect(await balance.json()).toMatchObject({ available: 123 })
    const estimate = await fetch(`${base}/billing/v1/billing/pricing/estimate`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ modelId: "veo-3", prompt: "a cat" })
    })
    expect(estimate.status).toBe(200)
    expect(await (await fetch(`${base}/somewhere-else`)).text()).toBe("the app's own route")
  })

  it("signInUrl leads into the cabinet with a session cookie, no password", async () => {
    const link = await frank.sessions.signInUrl(partnerId)
    expect(link.startsWith(`${base}/billing/cabinet/sign-in?token=`)).toBe(true)
    const signIn = await fetch(link, { redirect: "manual" })
    expect(signIn.status).toBe(303)
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("service_token="))
    expect(cookie).toBeDefined()
    const home = await fetch(new URL(signIn.headers.get("location") ?? "", base), {
      headers: { cookie: cookie!.split(";")[0]! }
    })
    expect(home.status).toBe(200)
    expect(await home.text()).toContain("<html")
  })
})
