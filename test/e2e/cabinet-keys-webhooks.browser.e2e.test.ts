/**
 * The partner cabinet in Chromium (Debian's package through playwright-core): the one-time sign-in
 * link, issuing a key and using it against the API until it is revoked, a webhook endpoint whose
 * test event reaches a local receiver and is replayed from the delivery log, CSRF refusals, session
 * expiry, sign-out and the language switch. Every page is checked with axe and photographed.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { expect, it } from "@effect/vitest"
import type { Browser } from "playwright-core"
import { describeBrowser } from "../support/browser.js"
import { useBrowserHost } from "./cabinet/browserHost.js"
import { expectAccessible, newPartnerId, screenshots, signedIn, signInUrl } from "./cabinet/cabinetBrowser.js"
import { advanceClock, envelopeOf, startReceiver, waitFor } from "./hostClient.js"
import { call, type RunningHost } from "./spawnHost.js"

describeBrowser("partner cabinet: sign-in, API keys, webhooks, CSRF, expiry, languages", () => {
  let host: RunningHost
  let browser: Browser

  useBrowserHost({ FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_SANDBOX_CLOCK: "true" }, (started) => {
    ;({ host, browser } = started)
  })

  it("a sign-in link opens the cabinet once, leaves no token in the address bar, and sets an HttpOnly cookie", async () => {
    const partnerId = await newPartnerId(host, "Link LLC")
    const link = await signInUrl(host, partnerId)
    const context = await browser.newContext({ locale: "ru-RU" })
    const page = await context.newPage()
    const scripts: Array<Promise<number>> = []
    page.on("response", (r) => {
      if (r.request().resourceType() === "script") scripts.push(r.body().then((b) => gzipSync(b).length))
    })
    await page.goto(link)
    expect(page.url()).toBe(`${host.baseUrl}/cabinet/`)
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Обзор")
    // The chart is drawn by the library the page loads; all first-load JS stays within 100 KiB gzipped.
    await page.locator('#spend-chart[data-drawn="true"] canvas').waitFor()
    const gzipped = (await Promise.all(scripts)).reduce((a, b) => a + b, 0)
    expect(scripts.length).toBe(2)
    expect(gzipped).toBeLessThanOrEqual(100 * 1024)
    const [cookie] = await context.cookies()
    expect(cookie).toMatchObject({ name: "service_token", httpOnly: true, sameSite: "Lax", path: "/" })
    expect(await page.evaluate(() => JSON.stringify(localStorage))).toBe("{}")
    await expectAccessible(page)
    await screenshots(page, "overview")

    const again = await (await browser.newContext()).newPage()
    const second = await again.goto(link)
    expect(second?.status()).toBe(410)
    expect(await again.getByTestId("sign-in-problem").getAttribute("data-reason")).toBe("used")
    await expectAccessible(again)
    await screenshots(again, "sign-in-used")
    await context.close()
  })

  it("issues a restricted key shown once, the key calls the API, revoking with a reason makes the next call 401", async () => {
    const { context, page } = await signedIn(browser, host, "Keys LLC")
    await page.getByRole("link", { name: "API-ключи" }).click()
    await expect.poll(() => page.getByText("Активных ключей: 0 из 20").count()).toBe(1)
    await expectAccessible(page)
    await screenshots(page, "keys")

    await page.getByLabel("Название", { exact: true }).last().fill("ci robot")
    await page.getByRole("checkbox", { name: "billing:read" }).check()
    await page.getByRole("button", { name: "Выпустить ключ" }).click()
    const raw = (await page.getByTestId("new-key").textContent()) ?? ""
    expect(raw).toMatch(/^svc_live_[0-9a-f]{64}$/)
    expect(page.url()).not.toContain(raw)
    await expect.poll(() => page.getByText("Активных ключей: 1 из 20").count()).toBe(1)
    await expectAccessible(page)
    await screenshots(page, "keys-issued")

    const balance = await call(host, "GET", "/v1/billing/balance", { headers: { "x-api-key": raw } })
    expect(balance.status, balance.text).toBe(200)
    const refused = await call(host, "GET", "/v1/billing/pricing/catalog", { headers: { "x-api-key": raw } })
    expect(refused.json.code).toBe("API_KEY_SCOPE_REQUIRED")

    await page.goto(`${host.baseUrl}/cabinet/keys`)
    expect(page.url()).not.toContain("svc_live")
    expect(await page.getByTestId("new-key").count()).toBe(0)
    const row = page.getByTestId("key-row").filter({ hasText: "ci robot" })
    await row.getByText("Переименовать / сузить области").click()
    await row.getByLabel("Причина (необязательно)").fill("leaked in a log")
    await row.getByRole("button", { name: "Отозвать" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Ключ отозван")
    const revoked = page.getByTestId("key-row").filter({ hasText: "ci robot" })
    expect(await revoked.getByTestId("key-status").textContent()).toBe("Отозван")
    expect(await revoked.textContent()).toContain("leaked in a log")

    const after = await call(host, "GET", "/v1/billing/balance", { headers: { "x-api-key": raw } })
    expect(after.status).toBe(401)
    await context.close()
  })

  it("an endpoint's test event reaches the receiver, shows in the delivery log and is replayed", async () => {
    const receiver = await startReceiver()
    const { context, page } = await signedIn(browser, host, "Hooks LLC", { locale: "en-GB" })
    await page.getByRole("link", { name: "Webhooks" }).click()
    await expectAccessible(page)
    await screenshots(page, "webhooks")

    await page.getByLabel("URL").fill(receiver.url)
    await page.locator('#create-title ~ form input[name="rateLimitPerSecond"]').fill("3")
    await page.getByRole("button", { name: "Add endpoint" }).click()
    expect(await page.getByTestId("endpoint-secret").textContent()).toMatch(/^whsec_/)
    const row = page.getByTestId("endpoint-row").filter({ hasText: receiver.url })
    expect(await row.getByTestId("endpoint-state").textContent()).toBe("Active")
    // The rate limit: set at creation, refused out of range in words, removed by emptying it.
    expect(await row.getByTestId("endpoint-rate").inputValue()).toBe("3")
    await row.getByTestId("endpoint-rate").evaluate((input: HTMLInputElement) => input.removeAttribute("min"))
    await row.getByTestId("endpoint-rate").fill("0")
    await row.getByRole("button", { name: "Set" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("whole number from 1 to 10,000")
    await row.getByTestId("endpoint-rate").fill("")
    await row.getByRole("button", { name: "Set" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Rate limit saved")
    expect(await row.getByTestId("endpoint-rate").inputValue()).toBe("")

    await row.getByRole("button", { name: "Send test" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Test event queued")
    const first = envelopeOf(await receiver.nth(1))
    expect(first.eventType).toBe("webhook.test")

    await waitFor(
      "the delivery shown as delivered",
      async () => {
        await page.goto(`${host.baseUrl}/cabinet/webhooks`)
        return (await page.locator('[data-testid="delivery-row"][data-status="delivered"]').count()) === 1
          ? true
          : undefined
      },
      { intervalMs: 1_500 }
    )
    const delivery = page.locator('[data-testid="delivery-row"][data-status="delivered"]')
    expect(await delivery.textContent()).toContain("200")
    await expectAccessible(page)
    await screenshots(page, "webhooks-log")
    await delivery.getByRole("button", { name: "Replay" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("same event id")
    const second = envelopeOf(await receiver.nth(2))
    expect(second.eventId).toBe(first.eventId)

    // Paused endpoints cannot be tested; the error is in words.
    await page.getByTestId("endpoint-row").getByRole("button", { name: "Pause" }).click()
    await page.getByTestId("endpoint-row").getByRole("button", { name: "Send test" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("paused")
    await page.getByTestId("endpoint-row").getByRole("button", { name: "Rotate secret" }).click()
    expect(await page.getByTestId("endpoint-secret").textContent()).toMatch(/^whsec_/)
    expect(await page.locator(".secret").textContent()).toContain("X-Service-Signature-Previous")
    await page.getByTestId("endpoint-row").getByRole("button", { name: "Delete" }).click()
    expect(await page.getByTestId("endpoint-row").count()).toBe(0)
    await context.close()
    await receiver.close()
  })

  it("refuses a cross-origin form post and a fetch with a foreign Origin; the same change from the cabinet works", async () => {
    const { context, page } = await signedIn(browser, host, "Csrf LLC")
    // Another origin (another port: same site, so the Lax cookie is sent and only the Origin check stops it).
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end(
        `<!doctype html><html lang="en"><title>x</title><body><form method="post" action="${host.baseUrl}/cabinet/keys">
<input name="label" value="forged"></form><script>document.forms[0].submit()</script></body></html>`
      )
    })
    await new Promise<void>((done) => evil.listen(0, "127.0.0.1", done))
    const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${host.baseUrl}/cabinet/keys` && r.request().method() === "POST"),
      page.goto(evilUrl)
    ])
    expect(response.status()).toBe(403)
    evil.close()

    const [cookie] = await context.cookies(host.baseUrl)
    const headers = { cookie: `service_token=${cookie?.value}`, origin: "http://evil.example" }
    const cabinetPost = await fetch(`${host.baseUrl}/cabinet/keys`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
      body: "label=forged"
    })
    expect(cabinetPost.status).toBe(403)
    const apiPost = await call(host, "POST", "/v1/billing/api-keys", { headers, body: { label: "forged" } })
    expect(apiPost.status).toBe(403)
    expect(apiPost.json.code).toBe("CROSS_SITE_REQUEST")
    const nullOrigin = await call(host, "POST", "/v1/billing/api-keys", {
      headers: { ...headers, origin: "null" },
      body: { label: "forged" }
    })
    expect(nullOrigin.status).toBe(403)
    // Scripts without Origin/Referer keep working as the README shows.
    const script = await call(host, "GET", "/v1/billing/api-keys", { headers: { cookie: headers.cookie } })
    expect(script.status).not.toBe(403)

    await page.goto(`${host.baseUrl}/cabinet/keys`)
    expect(await page.getByTestId("key-row").count()).toBe(0)
    await context.close()
  })

  it("an expired session leads to the signed-out page; sign-out ends the session on the server", async () => {
    const { context, page } = await signedIn(browser, host, "Expiry LLC", { ttlSeconds: 60 })
    await advanceClock(host, 61)
    await page.goto(`${host.baseUrl}/cabinet/keys`)
    expect(new URL(page.url()).pathname).toBe("/cabinet/signed-out")
    expect(await page.getByTestId("signed-out").getAttribute("data-reason")).toBe("expired")
    await expectAccessible(page)
    await screenshots(page, "signed-out")
    await context.close()

    const second = await signedIn(browser, host, "Signout LLC")
    const [cookie] = await second.context.cookies(host.baseUrl)
    await second.page.getByRole("button", { name: "Выйти" }).click()
    expect(await second.page.getByTestId("signed-out").getAttribute("data-reason")).toBe("signed-out")
    const reused = await fetch(`${host.baseUrl}/cabinet/keys`, {
      headers: { cookie: `service_token=${cookie?.value}` },
      redirect: "manual"
    })
    expect(reused.status).toBe(303)
    expect(reused.headers.get("location")).toBe("/cabinet/signed-out?reason=required")
    await second.context.close()
  })

  it("past the spec's 60 session requests a minute, a page says when to try again", async () => {
    const { context, page } = await signedIn(browser, host, "Busy LLC")
    const [cookie] = await context.cookies(host.baseUrl)
    // Fixed one-minute windows: within at most two windows' worth, a request meets the limit.
    let last: Response | undefined
    for (let i = 0; i < 125; i++) {
      const r = await fetch(`${host.baseUrl}/cabinet/tasks`, { headers: { cookie: `service_token=${cookie?.value}` } })
      if (r.status === 429) break
      expect(r.status).toBe(200)
      expect(r.headers.get("ratelimit-limit")).toBe("60")
      last = r
    }
    expect(last?.headers.get("ratelimit-remaining")).toBe("0")
    const response = await page.goto(`${host.baseUrl}/cabinet/keys`)
    expect(response?.status()).toBe(429)
    expect(Number(response?.headers()["retry-after"])).toBeGreaterThan(0)
    expect(await page.getByTestId("rate-limited").textContent()).toMatch(
      /^Слишком много запросов\. Повторите через \d+ с\.$/
    )
    await expectAccessible(page)
    await context.close()
  })

  it("follows Accept-Language and switches language with the switch, which sticks", async () => {
    const { context, page } = await signedIn(browser, host, "Lang LLC", { locale: "en-US" })
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Overview")
    expect(await page.locator("html").getAttribute("lang")).toBe("en")
    await page.getByRole("link", { name: "RU" }).click()
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Обзор")
    await page.getByRole("link", { name: "Вебхуки" }).click()
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Вебхуки")
    expect(await page.locator("html").getAttribute("lang")).toBe("ru")
    // Keyboard: the skip link is the first stop and leads to the content.
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Перейти к содержимому")
    await context.close()
  })
})
