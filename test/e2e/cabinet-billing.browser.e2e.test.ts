/**
 * The cabinet's billing pages in Chromium: a top-up through the sandbox checkout raises the
 * balance; the company profile (per-field errors, a revision conflict retried) → an invoice → its
 * PDF and SBP QR code → paid at the sandbox bank → refreshed → balance; the CSV download; the task
 * history with a result download; the estimate calculator. Every page is checked with axe and
 * photographed at 1280×800 and 375×812.
 */
import { readFileSync } from "node:fs"
import { expect, it } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { describeBrowser } from "../support/browser.js"
import { useBrowserHost } from "./cabinet/browserHost.js"
import { expectAccessible, screenshots, signedIn } from "./cabinet/cabinetBrowser.js"
import { adminHeaders, waitFor } from "./hostClient.js"
import { call, type RunningHost } from "./spawnHost.js"

const digits = (s: string | null) => (s ?? "").replace(/[^\d,-]/g, "")

const balanceTotal = async (page: Page, host: RunningHost) => {
  await page.goto(`${host.baseUrl}/cabinet/`)
  return digits(await page.getByTestId("balance-total").textContent())
}

const PROFILE = {
  companyName: "ООО «Ромашка»",
  inn: "7707083893",
  kpp: "773601001",
  ogrn: "1027700132195",
  legalAddress: "117997, Москва, ул. Вавилова, 19",
  email: "billing@romashka.example"
}

describeBrowser("partner cabinet: top-ups, invoices, transactions, tasks, prices", () => {
  let host: RunningHost
  let browser: Browser

  useBrowserHost({ FRANK_SANDBOX_TASK_SECONDS: "0" }, (started) => {
    ;({ host, browser } = started)
  })

  it("tops up through the sandbox checkout and back; the balance and the history show it", async () => {
    const { context, page } = await signedIn(browser, host, "Topup LLC")
    await page.getByRole("link", { name: "Пополнения" }).click()
    await expectAccessible(page)
    await screenshots(page, "topups")
    await page.getByLabel("Сумма, ₽ (1–100 000)").fill("1500")
    await page.getByLabel("Описание (необязательно)").fill("Пополнение из кабинета")
    await page.getByRole("button", { name: "Перейти к оплате" }).click()
    expect(new URL(page.url()).pathname).toMatch(/^\/sandbox\/checkout\//)
    await Promise.all([page.waitForURL(/result=paid/), page.getByRole("button", { name: /Оплатить/ }).click()])

    await page.getByTestId("return").click()
    expect(new URL(page.url()).pathname).toBe("/cabinet/topups")
    expect(await page.locator('[data-testid="payment-row"][data-status="confirmed"]').count()).toBe(1)
    expect(await balanceTotal(page, host)).toBe("1500")

    await page.getByRole("link", { name: "Операции" }).click()
    expect(await page.getByTestId("transaction-row").count()).toBe(1)
    await expectAccessible(page)
    await screenshots(page, "transactions")
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("csv").click()])
    const csv = readFileSync((await download.path()) ?? "", "utf8")
    const lines = csv.trim().split("\n")
    expect(lines[0]).toMatch(/^id,occurredAt,type,/)
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain(",topup,")
    await context.close()
  })

  it("profile with per-field errors and a retried conflict → invoice → PDF and SBP QR → paid at the bank → balance", async () => {
    const { context, page } = await signedIn(browser, host, "Invoice LLC")
    await page.goto(`${host.baseUrl}/cabinet/invoices`)
    const fill = async (p: Page, values: Record<string, string>) => {
      for (const [name, value] of Object.entries(values)) await p.locator(`input[name="${name}"]`).fill(value)
    }
    await fill(page, { ...PROFILE, inn: "7707083890" })
    await page.getByRole("button", { name: "Сохранить реквизиты" }).click()
    expect(await page.getByTestId("error-inn").isVisible()).toBe(true)
    expect(await page.locator('input[name="companyName"]').inputValue()).toBe(PROFILE.companyName)
    await expectAccessible(page)
    await screenshots(page, "invoices-errors")

    await fill(page, PROFILE)
    await page.getByRole("button", { name: "Сохранить реквизиты" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Реквизиты сохранены")

    // Two tabs on the same revision: the second save meets the first one's change.
    const other = await context.newPage()
    await other.goto(`${host.baseUrl}/cabinet/invoices`)
    await fill(page, { email: "finance@romashka.example" })
    await page.getByRole("button", { name: "Сохранить реквизиты" }).click()
    await fill(other, { phone: "+7 495 000-00-00" })
    await other.getByRole("button", { name: "Сохранить реквизиты" }).click()
    const conflict = (await other.getByTestId("notice").textContent()) ?? ""
    expect(conflict).toContain("E-mail для счетов")
    expect(conflict).toContain("finance@romashka.example")
    await other.getByRole("button", { name: "Сохранить реквизиты" }).click()
    expect(await other.getByTestId("notice").textContent()).toContain("Реквизиты сохранены")
    await other.close()

    await page.goto(`${host.baseUrl}/cabinet/invoices`)
    await page.getByLabel("Сумма, ₽ (1–100 000)").fill("15000")
    await page.getByRole("button", { name: "Выставить счёт" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Счёт выставлен")
    const row = page.getByTestId("invoice-row")
    expect(await row.getByTestId("invoice-status").textContent()).toBe("Выставлен")
    const pdfHref = (await row.getByTestId("invoice-pdf").getAttribute("href")) ?? ""
    const invoiceId = pdfHref.split("/")[3] ?? ""
    const pdf = await page.request.get(`${host.baseUrl}${pdfHref}`)
    expect(pdf.headers()["content-type"]).toBe("application/pdf")
    expect((await pdf.body()).subarray(0, 5).toString()).toBe("%PDF-")

    await row.getByRole("button", { name: "Ссылка СБП" }).click()
    expect(await page.getByTestId("sbp-qr").isVisible()).toBe(true)
    expect(await page.getByTestId("sbp-link").getAttribute("href")).toMatch(/^http/)
    await expectAccessible(page)
    await screenshots(page, "invoices")

    const paid = await call(host, "POST", `/admin/v1/sandbox/invoices/${invoiceId}/pay`, {
      headers: adminHeaders(host)
    })
    expect(paid.status, paid.text).toBe(200)
    await page.getByTestId("invoice-row").getByRole("button", { name: "Обновить статус" }).click()
    expect(await page.getByTestId("invoice-status").textContent()).toBe("Оплачен")
    expect(await balanceTotal(page, host)).toBe("15000")
    await context.close()
  })

  it("lists tasks with their cost and downloads a result; estimates a cost with its breakdown", async () => {
    const { context, page, partnerId } = await signedIn(browser, host, "Tasks LLC", { locale: "en-GB" })
    await call(host, "POST", `/admin/v1/partners/${partnerId}/credits`, {
      headers: adminHeaders(host),
      body: { amountFranks: 100, kind: "adjustment" }
    })
    const [cookie] = await context.cookies(host.baseUrl)
    const key = await call(host, "POST", "/v1/billing/api-keys", {
      headers: { cookie: `service_token=${cookie?.value}` },
      body: { label: "tasks" }
    })
    expect(key.status, key.text).toBe(201)
    const launched = await call(host, "POST", "/v1/tasks", {
      headers: { "x-api-key": key.json.key },
      body: { modelId: "gpt-image-1", prompt: "a lighthouse at dusk", quality: "low" }
    })
    expect(launched.status, launched.text).toBe(201)
    const taskId = launched.json.data.task_id as string
    const done = await call(host, "POST", `/admin/v1/sandbox/tasks/${taskId}/succeed`, { headers: adminHeaders(host) })
    expect(done.status, done.text).toBe(200)

    // A second task stays unfinished (the sandbox finishes nothing by itself here): it shows when its
    // reservation lapses, as its status answer does; the finished one shows no expiry.
    const waiting = await call(host, "POST", "/v1/tasks", {
      headers: { "x-api-key": key.json.key },
      body: { modelId: "gpt-image-1", prompt: "a harbour at dawn", quality: "low" }
    })
    expect(waiting.status, waiting.text).toBe(201)
    const status = await call(host, "GET", `/v1/tasks/${waiting.json.data.task_id}`, {
      headers: { "x-api-key": key.json.key }
    })
    const expiresAt = status.json.data.expiresAt as string
    expect(Date.parse(expiresAt) - Date.parse(status.json.data.createdAt)).toBe(86_400_000)
    expect(
      (await call(host, "GET", `/v1/tasks/${taskId}`, { headers: { "x-api-key": key.json.key } })).json.data
    ).toMatchObject({ status: "succeeded", expiresAt: null, lateReport: null })

    await page.getByRole("link", { name: "Tasks" }).click()
    await waitFor("the task shown as succeeded", async () => {
      await page.reload()
      return (await page.locator('[data-testid="task-row"][data-status="succeeded"]').count()) === 1 ? true : undefined
    })
    expect(await page.getByRole("columnheader", { name: "Reservation expires" }).count()).toBe(1)
    const queued = page
      .locator('[data-testid="task-row"]', { hasText: waiting.json.data.task_id as string })
      .locator('[data-testid="task-expires"] time')
    expect(await queued.getAttribute("datetime")).toBe(expiresAt)
    expect(await queued.textContent()).toContain("UTC")
    expect(
      await page.locator('[data-testid="task-row"][data-status="succeeded"] [data-testid="task-expires"]').textContent()
    ).toBe("")
    await expectAccessible(page)
    await screenshots(page, "tasks")
    const href = (await page.getByRole("link", { name: "Download" }).getAttribute("href")) ?? ""
    const result = await page.request.get(`${host.baseUrl}${href}`)
    expect(result.status()).toBe(200)
    expect((await result.body()).length).toBeGreaterThan(0)

    await page.getByRole("link", { name: "Prices" }).click()
    await expectAccessible(page)
    await page.getByLabel("Model").selectOption("gpt-image-1")
    await page.getByRole("button", { name: "Calculate" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Prompt")
    await page.getByLabel("Prompt").fill("a lighthouse at dusk")
    await page.getByRole("button", { name: "Calculate" }).click()
    const estimate = await call(host, "POST", "/v1/billing/pricing/estimate", {
      headers: { "x-api-key": key.json.key },
      // The calculator's query, as the cabinet reads it: empty fields left out.
      body: Object.fromEntries([...new URL(page.url()).searchParams].filter(([, v]) => v !== ""))
    })
    expect(estimate.status, estimate.text).toBe(200)
    expect(digits(await page.getByTestId("estimate-total").textContent())).toBe(
      digits(String(estimate.json.totalFranks))
    )
    expect(await page.getByRole("table").first().textContent()).toContain("Subtotal")
    await expectAccessible(page)
    await screenshots(page, "prices")
    await context.close()
  })
})
