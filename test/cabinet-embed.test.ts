/**
 * The embedding example: the cabinet mounted under /billing/portal of a plain Node server, with
 * sessions minted by the server's own sign-in, over real HTTP. Links, forms, the CSRF rule and the
 * signed-out redirect all carry the embedder's prefix.
 */
import { createServer } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Access, type Ids, Webhooks } from "@frank/core"
import { Effect } from "effect"
import { PORTAL, startExample } from "../examples/cabinet-embed/server.js"
import { DeliveryQueue } from "@frank/core/stores"

const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => done(port))
    })
  })

describe("cabinet embedded in a plain Node server", () => {
  let example: Awaited<ReturnType<typeof startExample>>
  let cookie = ""
  let partnerId = "" as Ids.PartnerId

  beforeAll(async () => {
    example = await startExample(await freePort())
    const partner = await example.runtime.runPromise(
      Effect.flatMap(Access.Access, (a) => a.createPartner("Embedded LLC"))
    )
    partnerId = partner.id
    const login = await fetch(`${example.baseUrl}/login?partner=${partner.id}`, { redirect: "manual" })
    expect(login.status).toBe(303)
    expect(login.headers.get("location")).toBe(`${PORTAL}/`)
    cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
    expect(cookie).toMatch(/^service_token=/)
  })

  afterAll(async () => {
    await example?.stop()
  })

  it("serves the host application and the cabinet side by side, every link under the prefix", async () => {
    expect(await (await fetch(`${example.baseUrl}/`)).text()).toBe("your existing application\n")
    const overview = await fetch(`${example.baseUrl}${PORTAL}/`, { headers: { cookie, "accept-language": "en" } })
    expect(overview.status).toBe(200)
    expect(overview.headers.get("content-security-policy")).toContain("script-src 'self'")
    const html = await overview.text()
    expect(html).toContain("<h1>Overview</h1>")
    expect(html).toContain(`href="${PORTAL}/keys"`)
    expect(html).toContain(`action="${PORTAL}/sign-out"`)
    expect((await fetch(`${example.baseUrl}${PORTAL}/assets/cabinet.js`)).status).toBe(200)
  })

  it("says when an endpoint was paused for failing, and since when it fails", async () => {
    const failingSince = Date.UTC(2026, 10, 1, 10, 8, 36)
    await example.runtime.runPromise(
      Effect.gen(function* () {
        const endpoint = yield* (yield* Webhooks.Webhooks).createEndpoint(partnerId, {
          url: "https://hooks.embedded.example/a"
        })
        // The state the health rule leaves an endpoint in (its own contract tests how it gets there).
        yield* (yield* DeliveryQueue).disableEndpoint(
          partnerId,
          endpoint.id,
          (e) => ({
            ...e,
            active: false,
            health: { ...e.health, failingSince, disabledAt: failingSince + 5 * 86_400_000, disabledReason: "failing" }
          }),
          () => Effect.void
        )
      })
    )
    const page = await fetch(`${example.baseUrl}${PORTAL}/webhooks`, { headers: { cookie, "accept-language": "en" } })
    const html = await page.text()
    expect(html).toContain("Paused automatically: deliveries have failed since")
    expect(html).toContain("2026")
  })

  it("issues a key from the embedded cabinet; a foreign origin is refused; no session leads to signed-out", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded", cookie }
    const issued = await fetch(`${example.baseUrl}${PORTAL}/keys`, {
      method: "POST",
      headers: { ...form, origin: example.baseUrl },
      body: "label=embedded"
    })
    expect(issued.status).toBe(201)
    expect(await issued.text()).toMatch(/svc_live_[0-9a-f]{64}/)
    const forged = await fetch(`${example.baseUrl}${PORTAL}/keys`, {
      method: "POST",
      headers: { ...form, origin: "https://evil.example" },
      body: "label=forged"
    })
    expect(forged.status).toBe(403)
    const anonymous = await fetch(`${example.baseUrl}${PORTAL}/keys`, { redirect: "manual" })
    expect(anonymous.status).toBe(303)
    expect(anonymous.headers.get("location")).toBe(`${PORTAL}/signed-out?reason=required`)
  })

  it("revoking says what happened: revoked, already revoked, or not found for another partner's or an unknown id", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded", cookie, origin: example.baseUrl }
    const { own, foreign } = await example.runtime.runPromise(
      Effect.gen(function* () {
        const access = yield* Access.Access
        const other = yield* access.createPartner("Other LLC")
        return {
          own: (yield* access.issueKey(partnerId, { label: "to revoke" })).view.id,
          foreign: { id: (yield* access.issueKey(other.id, { label: "not yours" })).view.id, partnerId: other.id }
        }
      })
    )
    const revoke = (id: string) =>
      fetch(`${example.baseUrl}${PORTAL}/keys/${id}/revoke`, {
        method: "POST",
        headers: { ...form, "accept-language": "en" },
        body: "reason=r",
        redirect: "manual"
      })
    const notice = async (response: Response) => {
      const location = response.headers.get("location")
      const shown =
        location === null
          ? response
          : await fetch(`${example.baseUrl}${location}`, { headers: { cookie, "accept-language": "en" } })
      return /data-testid="notice">(.*?)<\/div>/s.exec(await shown.text())?.[1] ?? ""
    }
    const first = await revoke(own)
    expect(first.status).toBe(303)
    expect(await notice(first)).toContain("Key revoked.")
    const again = await revoke(own)
    expect(again.status).toBe(303)
    expect(await notice(again)).toContain("already revoked")
    for (const id of [foreign.id, "00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      const refused = await revoke(id)
      expect(refused.status).toBe(404)
      const text = await notice(refused)
      expect(text).not.toContain("revoked")
      expect(text).toContain("not found")
    }
    const foreignAfter = await example.runtime.runPromise(
      Effect.flatMap(Access.Access, (a) => a.listKeys(foreign.partnerId, {}))
    )
    expect(foreignAfter.find((k) => k.id === foreign.id)?.revokedAt).toBeNull()
  })
})
