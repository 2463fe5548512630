/**
 * Every cabinet page in both languages, with data on it (a credit and a bonus, a key, an endpoint
 * with a delivered test event, an invoice, a pending top-up, a task, a triggered balance alert):
 * in Russian no raw machine value (a status, kind, type, plan, audit action or error code) shows
 * outside `<code>`; each page passes axe in both languages and in the dark scheme, is measured and
 * photographed at 1280, 375 and 320 px, and the header names the partner and plan.
 */
import { randomUUID } from "node:crypto"
import { expect, it } from "@effect/vitest"
import { Events, Invoices, Ledger, Payments, Tariffs, Tasks, Webhooks } from "@frank/core"
import type { Browser, Page } from "playwright-core"
import { ru } from "../../packages/adapters/src/cabinet/strings/ru.js"
import { KNOWN_ACTIONS } from "../../packages/adapters/src/cabinet/pages/AuditPage.js"
import { describeBrowser } from "../support/browser.js"
import { useBrowserHost } from "./cabinet/browserHost.js"
import { expectAccessible, screenshots, signedIn } from "./cabinet/cabinetBrowser.js"
import { adminHeaders, startReceiver, waitFor } from "./hostClient.js"
import { call, type RunningHost } from "./spawnHost.js"

const PAGES = [
  "/",
  "/transactions",
  "/keys",
  "/webhooks",
  "/topups",
  "/invoices",
  "/tasks",
  "/prices",
  "/settings",
  "/audit"
]

/** The raw values a Russian page must show as words, never as they are. */
const CODES: ReadonlyArray<string> = [
  ...Invoices.InvoiceStatus.literals,
  ...Payments.PaymentStatus.literals,
  ...Tasks.TaskStatus.literals,
  ...Webhooks.DeliveryStatus.literals,
  ...Ledger.EntryKind.literals,
  ...Ledger.TransactionType.literals,
  ...Tariffs.Plan.literals,
  ...KNOWN_ACTIONS,
  ...Events.allEventTypes,
  ...Object.keys(ru.errors.codes)
]

/** The codes in the page's text outside `<code>` (identifiers shown as such), scripts and screen-reader-only text. */
const rawCodes = (page: Page) =>
  page.evaluate((codes) => {
    const body = document.body.cloneNode(true) as HTMLElement
    for (const el of Array.from(body.querySelectorAll("code, script, style"))) el.remove()
    const text = body.textContent ?? ""
    return codes.filter((c) =>
      new RegExp(`(^|[^\\p{L}\\p{N}_.])${c.replace(/\./g, "\\.")}($|[^\\p{L}\\p{N}_])`, "u").test(text)
    )
  }, CODES)

const PROFILE = {
  companyName: "ООО «Слова»",
  inn: "7707083893",
  kpp: "773601001",
  ogrn: "1027700132195",
  legalAddress: "117997, Москва, ул. Вавилова, 19",
  email: "billing@slova.example",
  expectedProfileRevision: "0"
}

describeBrowser("partner cabinet: every page in both languages, widths and schemes", () => {
  let host: RunningHost
  let browser: Browser

  useBrowserHost({ FRANK_ALLOW_PRIVATE_NETWORK: "true" }, (started) => {
    ;({ host, browser } = started)
  })

  /** Data on every page, entered as a partner would (the cabinet's own forms) and by the operator. */
  const populate = async (page: Page, partnerId: string, cookie: string) => {
    const base = `${host.baseUrl}/cabinet`
    const admin = { headers: adminHeaders(host) }
    for (const body of [
      { amountFranks: 2000, kind: "adjustment" },
      { amountFranks: 300, kind: "bonus", expiresAt: new Date(Date.now() + 864e6).toISOString() }
    ])
      expect((await call(host, "POST", `/admin/v1/partners/${partnerId}/credits`, { ...admin, body })).status).toBe(201)
    const post = async (path: string, form: Record<string, string>) =>
      expect((await page.request.post(`${base}${path}`, { form, maxRedirects: 0 })).status(), path).toBeLessThan(400)
    await post("/keys", { label: "робот отчётов" })
    await post("/settings/alerts", { thresholdFranks: "5000" })
    await post("/invoices/profile", PROFILE)
    await post("/invoices", { amountRub: "1000", expectedProfileRevision: "1" })
    await post("/topups", { amountRub: "150", idempotencyKey: randomUUID() })
    const receiver = await startReceiver()
    await post("/webhooks", { url: receiver.url })
    const session = { cookie: `service_token=${cookie}` }
    await page.goto(`${base}/webhooks`)
    const test = (await page.locator('form[action$="/test"]').getAttribute("action")) ?? ""
    await post(test.replace("/cabinet", ""), {})
    await receiver.nth(1)
    const key = await call(host, "POST", "/v1/billing/api-keys", { headers: session, body: { label: "задачи" } })
    const task = await call(host, "POST", "/v1/tasks", {
      headers: { "x-api-key": key.json.key },
      body: { modelId: "gpt-image-1", prompt: "маяк на закате", quality: "low" }
    })
    expect(task.status, task.text).toBe(201)
    await waitFor(
      "the test delivery delivered",
      async () => {
        await page.goto(`${base}/webhooks`)
        return (await page.locator('[data-testid="delivery-row"][data-status="delivered"]').count()) === 1
          ? true
          : undefined
      },
      { intervalMs: 1_500 }
    )
    await receiver.close()
  }

  it("walks every page: Russian shows no raw code; axe, layout and screenshots in both languages", async () => {
    const { context, page, partnerId } = await signedIn(browser, host, "ООО «Слова»")
    const [cookie] = await context.cookies(host.baseUrl)
    await populate(page, partnerId, cookie?.value ?? "")

    await page.goto(`${host.baseUrl}/cabinet/?lang=ru`)
    expect(await page.getByTestId("account").textContent()).toContain("ООО «Слова»")
    expect(await page.getByTestId("account-plan").textContent()).toBe("Тариф: Базовый")

    for (const lang of ["ru", "en"] as const) {
      await page.goto(`${host.baseUrl}/cabinet/?lang=${lang}`)
      for (const path of PAGES) {
        const response = await page.goto(`${host.baseUrl}/cabinet${path}`)
        expect(response?.status(), path).toBe(200)
        expect(await page.locator("html").getAttribute("lang")).toBe(lang)
        if (lang === "ru") expect(await rawCodes(page), `raw codes on ${path}`).toEqual([])
        await expectAccessible(page)
        await screenshots(page, `words-${lang}${path === "/" ? "-overview" : path.replace("/", "-")}`)
      }
    }
    // The statuses read as words in badges, with the raw value kept on the row.
    await page.goto(`${host.baseUrl}/cabinet/invoices?lang=ru`)
    expect(await page.getByTestId("invoice-status").textContent()).toBe("Выставлен")
    await page.goto(`${host.baseUrl}/cabinet/webhooks`)
    expect(
      await page.locator('[data-testid="delivery-row"][data-status="delivered"] .badge').first().textContent()
    ).toBe("Доставлено")
    await context.close()
  }, 600_000)

  it("the dark scheme keeps every page accessible; empty lists name the next step", async () => {
    const { context, page } = await signedIn(browser, host, "ООО «Пусто»")
    await page.emulateMedia({ colorScheme: "dark" })
    for (const path of PAGES) {
      await page.goto(`${host.baseUrl}/cabinet${path}`)
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe("rgb(246, 247, 249)")
      await expectAccessible(page)
    }
    await screenshots(page, "words-dark-audit")
    await page.goto(`${host.baseUrl}/cabinet/keys`)
    const empty = page.getByTestId("empty")
    expect(await empty.textContent()).toContain("API-ключей пока нет")
    await empty.getByRole("link", { name: "Выпустить ключ" }).click()
    expect(new URL(page.url()).hash).toBe("#issue-title")
    await page.goto(`${host.baseUrl}/cabinet/transactions`)
    await page.getByTestId("empty").getByRole("link").click()
    expect(new URL(page.url()).pathname).toBe("/cabinet/topups")
    await screenshots(page, "words-dark-topups")
    await context.close()
  }, 300_000)

  it("an action shows its busy state and ignores a second submit; pages still post without scripts", async () => {
    const { context, page } = await signedIn(browser, host, "ООО «Занято»")
    await page.goto(`${host.baseUrl}/cabinet/settings`)
    // Hold the post so the busy state can be seen before the next page arrives.
    let posts = 0
    let release: () => void = () => {}
    const held = new Promise<void>((done) => {
      release = done
    })
    await page.route("**/cabinet/settings/alerts", async (route) => {
      posts++
      await held
      await route.continue()
    })
    await page.getByLabel("Порог, ₣ (1–10 000 000)").fill("100")
    const form = page.locator("form[action$='/settings/alerts']")
    // Submitted twice in a row: the first marks the form busy, the second is ignored.
    const busy = await form.evaluate((f) => {
      const el = f as HTMLFormElement
      el.requestSubmit()
      const state = [el.getAttribute("aria-busy"), el.querySelector("[data-busy-active]") !== null]
      el.requestSubmit()
      return state
    })
    expect(busy).toEqual(["true", true])
    release()
    await page.waitForURL(/done=created/)
    expect(posts).toBe(1)
    await context.close()

    const noScript = await browser.newContext({ javaScriptEnabled: false, locale: "en-GB" })
    const plain = await noScript.newPage()
    const signed = await signedIn(browser, host, "No Script LLC", { locale: "en-GB" })
    const [session] = await signed.context.cookies(host.baseUrl)
    await signed.context.close()
    await noScript.addCookies([{ ...session!, sameSite: "Lax" }])
    await plain.goto(`${host.baseUrl}/cabinet/settings`)
    await plain.getByLabel("Threshold, ₣ (1–10,000,000)").fill("100")
    await plain.getByRole("button", { name: "Add alert" }).click()
    expect(await plain.getByTestId("notice").textContent()).toBe("Alert added.")
    await noScript.close()
  }, 120_000)
})
