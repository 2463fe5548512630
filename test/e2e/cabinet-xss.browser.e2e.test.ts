/**
 * Safe by construction, checked in Chromium: every field a partner controls (key label and revoke
 * reason, endpoint URL, company name and address, invoice comment, top-up description, the
 * calculator's prompt, the filters reflected from the query) is filled with markup payloads, and
 * each page's DOM must hold them as text: no element or event-handler attribute they could inject,
 * no script beyond the cabinet's own, no dialog, no inline script even tried (CSP reports none).
 */
import { expect, it } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { describeBrowser } from "../support/browser.js"
import { useBrowserHost } from "./cabinet/browserHost.js"
import { signedIn } from "./cabinet/cabinetBrowser.js"
import { startReceiver } from "./hostClient.js"
import type { RunningHost } from "./spawnHost.js"

const PAYLOAD = `<script>alert("xss")</script>"onmouseover="alert(1)" '><img src=x onerror=alert(2)>`
/** A URL keeps no space; the engine stores its WHATWG form, which the page must show verbatim. */
const URL_PAYLOAD = `?q=<script>alert(3)</script>"onmouseover="alert(4)'`

const PROFILE = {
  companyName: `ООО ${PAYLOAD}`,
  inn: "7707083893",
  kpp: "773601001",
  ogrn: "1027700132195",
  legalAddress: `117997, Москва, ${PAYLOAD}`,
  email: "billing@romashka.example"
}

/** What injected markup would leave in the DOM; empty when every payload stayed text. */
const injected = (page: Page) =>
  page.evaluate(() => {
    const found: string[] = []
    for (const el of Array.from(document.querySelectorAll("*"))) {
      for (const a of Array.from(el.attributes))
        if (/^on/i.test(a.name) || a.name.includes('"') || a.name.includes("'")) found.push(`${el.tagName}[${a.name}]`)
      if (
        el instanceof HTMLScriptElement &&
        el.type !== "application/json" &&
        !/\/cabinet\/assets\/[\w.]+\.js$/.test(el.src)
      )
        found.push(`script ${el.outerHTML.slice(0, 60)}`)
      if (el instanceof HTMLImageElement && !el.src.startsWith("data:")) found.push(`img ${el.src}`)
    }
    return found
  })

describeBrowser("partner cabinet: partner-controlled text stays text on every page", () => {
  let host: RunningHost
  let browser: Browser

  useBrowserHost({ FRANK_ALLOW_PRIVATE_NETWORK: "true" }, (started) => {
    ;({ host, browser } = started)
  })

  /** A signed-in page that records any dialog and any CSP report (an inline script the page tried). */
  const open = async (name: string) => {
    const { context, page } = await signedIn(browser, host, `${name} ${PAYLOAD}`)
    const tried: string[] = []
    page.on("dialog", (d) => {
      tried.push(`dialog: ${d.message()}`)
      void d.dismiss()
    })
    page.on("console", (m) => {
      if (m.text().includes("Content Security Policy")) tried.push(m.text())
    })
    const goto = (path: string) => page.goto(`${host.baseUrl}/cabinet${path}`)
    const clean = async (what: string) => expect(await injected(page), what).toEqual([])
    const close = async () => {
      expect(tried).toEqual([])
      await context.close()
    }
    return { page, goto, clean, close }
  }

  it("a key's label and revoke reason", async () => {
    const { page, goto, clean, close } = await open("Keys")
    await goto("/keys")
    await page.locator('form[action$="/cabinet/keys"] input[name="label"]').fill(PAYLOAD)
    await page.locator('form[action$="/cabinet/keys"] button[type="submit"]').click()
    const key = page.getByTestId("key-row")
    expect(await key.locator("td").nth(1).textContent()).toBe(PAYLOAD)
    await key.locator("summary").click()
    expect(await key.locator('input[name="label"]').inputValue()).toBe(PAYLOAD)
    await key.locator('input[name="reason"]').fill(PAYLOAD)
    await key.locator('form[action$="/revoke"] button').click()
    expect(await page.getByTestId("key-row").locator("td").nth(6).textContent()).toBe(PAYLOAD)
    await clean("keys")
    await goto("/audit")
    await clean("audit")
    await close()
  })

  it("an endpoint's URL, in its row and after a failed delivery", async () => {
    const { page, goto, clean, close } = await open("Hooks")
    const receiver = await startReceiver({ status: 500 })
    const url = `${receiver.url}${URL_PAYLOAD}`
    await goto("/webhooks")
    await page.locator('input[name="url"]').fill(url)
    await page.locator('form[method="post"][action$="/cabinet/webhooks"] button').click()
    const endpoint = page.getByTestId("endpoint-row")
    expect(await endpoint.locator("td").first().textContent()).toBe(new URL(url).href)
    expect(await endpoint.getAttribute("data-url")).toBe(new URL(url).href)
    await endpoint.locator('form[action$="/test"] button').click()
    await receiver.nth(1)
    await goto("/webhooks")
    await clean("webhooks")
    await receiver.close()
    await close()
  })

  it("the endpoint's page, a delivery's payload and the receiver's response body", async () => {
    const { page, goto, clean, close } = await open("Portal")
    const receiver = await startReceiver({ status: 500, body: PAYLOAD })
    const url = `${receiver.url}${URL_PAYLOAD}`
    await goto("/webhooks")
    await page.locator('input[name="url"]').fill(url)
    await page.locator('form[method="post"][action$="/cabinet/webhooks"] button').click()
    await page.getByTestId("endpoint-link").click()
    expect(await page.getByTestId("endpoint-url").textContent()).toBe(new URL(url).href)
    await page.locator('form[action$="/test"] button').click()
    await receiver.nth(1)
    await clean("endpoint page")
    // The body comes back once the attempt is recorded.
    const body = page.getByTestId("attempt-body")
    for (let i = 0; i < 30 && (await body.count()) === 0; i++) {
      await goto("/webhooks")
      await page.getByTestId("delivery-link").first().click()
      if ((await body.count()) === 0) await page.waitForTimeout(500)
    }
    expect(await body.first().textContent()).toBe(PAYLOAD)
    expect(JSON.parse((await page.getByTestId("payload").textContent()) ?? "").data.endpointId).toBeDefined()
    await clean("message page")
    await goto(`/webhooks?eventType=${encodeURIComponent(PAYLOAD)}&from=${encodeURIComponent(PAYLOAD)}`)
    expect(await page.locator('input[name="from"]').getAttribute("value")).toBe(PAYLOAD)
    await clean("filters")
    await goto("/webhooks/events")
    await clean("catalog")
    await receiver.close()
    await close()
  }, 120_000)

  it("a top-up's description, the company name and address, an invoice's comment", async () => {
    const { page, goto, clean, close } = await open("Billing")
    await goto("/topups")
    await page.locator('input[name="amountRub"]').fill("150")
    await page.locator('input[name="description"]').fill(PAYLOAD)
    await page.locator('form[action$="/cabinet/topups"] button[type="submit"]').click()
    await goto("/topups")
    expect(await page.getByTestId("payment-row").locator("td").nth(2).textContent()).toBe(PAYLOAD)
    await clean("topups")

    await goto("/invoices")
    for (const [name, value] of Object.entries(PROFILE)) await page.locator(`input[name="${name}"]`).fill(value)
    await page.locator('form[action$="/invoices/profile"] button[type="submit"]').click()
    expect(await page.getByTestId("notice").getAttribute("class")).toContain("ok")
    expect(await page.locator('input[name="companyName"]').inputValue()).toBe(PROFILE.companyName)
    expect(await page.locator('input[name="legalAddress"]').inputValue()).toBe(PROFILE.legalAddress)
    await page.locator('input[name="amountRub"]').fill("1000")
    await page.locator('input[name="comment"]').fill(PAYLOAD)
    await page.locator('form[action$="/cabinet/invoices"] button[type="submit"]').click()
    expect(await page.getByTestId("invoice-row").count()).toBe(1)
    await clean("invoices")
    await close()
  })

  it("the calculator's prompt and the filters echoed from the query", async () => {
    const { page, goto, clean, close } = await open("Query")
    await goto("/prices?modelId=gpt-image-1")
    await page.locator('textarea[name="prompt"]').fill(PAYLOAD)
    await page.locator('form[action$="/cabinet/prices"] button[type="submit"]').click()
    expect(await page.locator('textarea[name="prompt"]').inputValue()).toBe(PAYLOAD)
    await clean("prices")

    const q = encodeURIComponent(PAYLOAD)
    await goto(`/transactions?dateFrom=${q}&dateTo=${q}&type=${q}`)
    expect(await page.locator('input[name="dateFrom"]').getAttribute("value")).toBe(PAYLOAD)
    await clean("transactions")
    for (const path of [`/audit?dateFrom=${q}&action=${q}`, "/", "/tasks", "/settings", `/webhooks?status=${q}`]) {
      await goto(path)
      await clean(path)
    }
    await close()
  })
})
