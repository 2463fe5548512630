/**
 * The cabinet's bonus credits and balance alerts in Chromium: the overview lists the partner's
 * grants with what is left and when they expire, and the balance's next expiries; the settings
 * page creates (with its errors for bad input, in both languages), lists and deletes alerts up to
 * the limit of 5, refuses a cross-site post, and shows the same alerts the partner API answers the
 * session. Every page is checked with axe and photographed at 1280×800 and 375×812.
 */
import { expect, it } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { describeBrowser } from "../support/browser.js"
import { useBrowserHost } from "./cabinet/browserHost.js"
import { expectAccessible, screenshots, signedIn } from "./cabinet/cabinetBrowser.js"
import { adminHeaders } from "./hostClient.js"
import { call, type RunningHost } from "./spawnHost.js"

const DAY_MS = 86_400_000
/** Digits and the decimal comma of a Russian amount, without its group spaces and sign. */
const digits = (s: string | null) => (s ?? "").replace(/[^\d,]/g, "")

describeBrowser("partner cabinet: bonus credits and balance alerts", () => {
  let host: RunningHost
  let browser: Browser

  useBrowserHost({}, (started) => {
    ;({ host, browser } = started)
  })

  const credit = async (partnerId: string, body: Record<string, unknown>) => {
    const r = await call(host, "POST", `/admin/v1/partners/${partnerId}/credits`, {
      headers: adminHeaders(host),
      body
    })
    expect(r.status, r.text).toBe(201)
    return r.json.transactionId as string
  }

  it("the overview shows each grant with its remainder and expiry, and the next expiries", async () => {
    const { context, page, partnerId } = await signedIn(browser, host, "Bonus LLC")
    expect(await page.getByTestId("grant-row").count()).toBe(0)
    const expiresAt = new Date(Date.now() + 10 * DAY_MS).toISOString()
    const early = await credit(partnerId, { amountFranks: 300, kind: "bonus", expiresAt, priority: 10 })
    const lasting = await credit(partnerId, { amountFranks: 1250.5, kind: "bonus", priority: 80 })
    await credit(partnerId, { amountFranks: 100, kind: "adjustment" })

    await page.reload()
    expect(await page.getByRole("heading", { name: "Бонусные начисления" }).count()).toBe(1)
    expect(await page.getByTestId("grant-row").count()).toBe(2)
    const earlyRow = page.locator(`[data-testid="grant-row"][data-grant="${early}"]`)
    expect(digits(await earlyRow.getByTestId("grant-remaining").textContent())).toBe("300")
    expect(await earlyRow.locator('[data-testid="grant-expires"] time').getAttribute("datetime")).toBe(expiresAt)
    expect(await earlyRow.getByTestId("grant-state").textContent()).toBe("Действует")
    const lastingRow = page.locator(`[data-testid="grant-row"][data-grant="${lasting}"]`)
    expect(digits(await lastingRow.getByTestId("grant-remaining").textContent())).toBe("1250,5")
    expect(await lastingRow.getByTestId("grant-expires").textContent()).toBe("бессрочно")
    // The balance's next expiries: only the grant that expires.
    const expiring = page.getByTestId("expiring-item")
    expect(await expiring.count()).toBe(1)
    expect(await expiring.textContent()).toContain("сгорят")
    expect(await expiring.locator("time").getAttribute("datetime")).toBe(expiresAt)
    expect(digits(await page.getByTestId("balance-total").textContent())).toBe("1650,5")
    await expectAccessible(page)
    await screenshots(page, "overview-grants")

    await page.goto(`${host.baseUrl}/cabinet/?lang=en`)
    expect(await page.getByRole("heading", { name: "Bonus credits" }).count()).toBe(1)
    expect(await page.getByTestId("expiring-item").textContent()).toContain("expire on")
    expect(await lastingRow.getByTestId("grant-expires").textContent()).toBe("never")
    await context.close()
  })

  const thresholdField = (page: Page, lang: "ru" | "en") =>
    page.getByLabel(lang === "ru" ? "Порог, ₣ (1–10 000 000)" : "Threshold, ₣ (1–10,000,000)")

  /** Submits the form as typed, past the browser's own checks, to see the server's answer. */
  const submitRaw = async (page: Page, value: string) => {
    await page.locator("form[action$='/settings/alerts']").evaluate((f) => {
      ;(f as HTMLFormElement).noValidate = true
    })
    await thresholdField(page, "ru").fill(value)
    await page.getByRole("button", { name: "Добавить уведомление" }).click()
  }

  it("settings: creates alerts (errors for bad input), up to 5, deletes them; the API shows the same", async () => {
    const { context, page, partnerId } = await signedIn(browser, host, "Alerts LLC")
    await credit(partnerId, { amountFranks: 1000, kind: "adjustment" })
    await page.getByRole("link", { name: "Настройки" }).click()
    expect(new URL(page.url()).pathname).toBe("/cabinet/settings")
    expect(await page.getByTestId("alert-row").count()).toBe(0)

    await thresholdField(page, "ru").fill("1500.5")
    await page.getByRole("button", { name: "Добавить уведомление" }).click()
    expect(await page.getByTestId("notice").textContent()).toBe("Уведомление добавлено.")
    const row = page.getByTestId("alert-row")
    expect(await row.count()).toBe(1)
    expect(digits(await row.getByTestId("alert-threshold").textContent())).toBe("1500,5")
    // 1,000 ₣ available is below 1,500.5 ₣: the alert starts triggered.
    expect(await row.getAttribute("data-state")).toBe("triggered")
    expect(await row.getByTestId("alert-state").textContent()).toBe("Ниже порога")

    for (const bad of ["0", "12.345", "10000001", "-5"]) {
      await submitRaw(page, bad)
      const notice = await page.getByTestId("notice")
      expect(await notice.getAttribute("role"), bad).toBe("alert")
      expect(await notice.textContent(), bad).toContain("Порог — число франков от 1 до 10 000 000")
      expect(await thresholdField(page, "ru").inputValue(), bad).toBe(bad)
      expect(await page.getByTestId("alert-row").count()).toBe(1)
    }
    await expectAccessible(page)
    await screenshots(page, "settings-alert-error")

    for (const value of ["10", "20", "30", "500"]) {
      await page.goto(`${host.baseUrl}/cabinet/settings`)
      await thresholdField(page, "ru").fill(value)
      await page.getByRole("button", { name: "Добавить уведомление" }).click()
      expect(await page.getByTestId("notice").textContent()).toBe("Уведомление добавлено.")
    }
    expect(await page.getByTestId("alert-row").count()).toBe(5)
    expect(await page.locator('[data-testid="alert-row"][data-state="ok"]').count()).toBe(4)
    expect(await page.getByTestId("alerts-full").isVisible()).toBe(true)
    expect(await thresholdField(page, "ru").count()).toBe(0)
    await expectAccessible(page)
    await screenshots(page, "settings-alerts")
    // A sixth, posted anyway (a stale tab): the engine's limit, in words.
    const sixth = await page.request.post(`${host.baseUrl}/cabinet/settings/alerts`, {
      form: { thresholdFranks: "40" }
    })
    expect(sixth.status()).toBe(409)
    expect(await sixth.text()).toContain("У вас уже 5 уведомлений")

    // The partner API answers the session the same alerts.
    const [cookie] = await context.cookies(host.baseUrl)
    const session = { cookie: `service_token=${cookie?.value}` }
    const listed = await call(host, "GET", "/v1/billing/alerts", { headers: session })
    expect(listed.status, listed.text).toBe(200)
    expect(
      listed.json.items.map((a: { thresholdFranks: number }) => a.thresholdFranks).sort((a: number, b: number) => a - b)
    ).toEqual([10, 20, 30, 500, 1500.5])
    const target = listed.json.items.find((a: { thresholdFranks: number }) => a.thresholdFranks === 1500.5)

    // A change from another site is refused and changes nothing.
    const crossSite = await page.request.post(`${host.baseUrl}/cabinet/settings/alerts/${target.id}/delete`, {
      headers: { origin: "https://evil.example" }
    })
    expect(crossSite.status()).toBe(403)
    const malformed = await page.request.post(`${host.baseUrl}/cabinet/settings/alerts/not-an-id/delete`)
    expect(malformed.status()).toBe(404)
    expect(await malformed.text()).toContain("Уведомление не найдено")
    await page.goto(`${host.baseUrl}/cabinet/settings`)
    expect(await page.getByTestId("alert-row").count()).toBe(5)

    await page.getByRole("button", { name: /Удалить уведомление с порогом 1\s500,5/ }).click()
    expect(await page.getByTestId("notice").textContent()).toBe("Уведомление удалено.")
    expect(await page.getByTestId("alert-row").count()).toBe(4)
    expect(await thresholdField(page, "ru").isVisible()).toBe(true)
    const gone = await page.request.post(`${host.baseUrl}/cabinet/settings/alerts/${target.id}/delete`)
    expect(gone.status()).toBe(404)
    const after = await call(host, "GET", "/v1/billing/alerts", { headers: session })
    expect(after.json.items.some((a: { id: string }) => a.id === target.id)).toBe(false)

    await page.goto(`${host.baseUrl}/cabinet/settings?lang=en`)
    expect(await page.getByRole("heading", { name: "Balance alerts" }).count()).toBe(1)
    expect(
      await page.locator('[data-testid="alert-row"][data-state="ok"] [data-testid="alert-state"]').first().textContent()
    ).toBe("Above the threshold")
    await page.getByRole("button", { name: /Delete the alert at 500/ }).click()
    expect(await page.getByTestId("notice").textContent()).toBe("Alert deleted.")
    await page.locator("form[action$='/settings/alerts']").evaluate((f) => {
      ;(f as HTMLFormElement).noValidate = true
    })
    await thresholdField(page, "en").fill("0.001")
    await page.getByRole("button", { name: "Add alert" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("from 1 to 10,000,000")
    await expectAccessible(page)
    await context.close()
  })
})
