/**
 * The top-up flow in a real browser: headless Chromium (Debian's package, driven by
 * playwright-core, which downloads nothing) opens a payment link of the spawned host, reads the
 * sandbox checkout page and presses "Pay"; the page then shows the payment confirmed and the
 * partner's balance has risen. Needs /usr/bin/chromium (`apt-get install chromium`; CI installs
 * it) or CHROMIUM_PATH.
 */
import { existsSync } from "node:fs"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Browser, chromium } from "playwright-core"
import { type RunningHost, spawnHost } from "./spawnHost.js"
import { balanceTotal, createLink, newTopUpPartner } from "./topUpSetup.js"

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

let host: RunningHost
let browser: Browser

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`
    )
  host = await spawnHost({ FRANK_TRUST_PROXY: "true" })
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // The machine has no outside network: keep Chromium from dialling its own services.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  const code = await host?.stop()
  expect(code).toBe(0)
}, 60_000)

describe("top-up in a browser", () => {
  it("the payer opens the payment link, presses Pay, sees the payment confirmed; the balance rises", async () => {
    const partner = await newTopUpPartner(host, "Browser LLC")
    const link = await createLink(
      host,
      partner,
      { amountRub: 2750, description: "Пополнение из браузера" },
      randomUUID()
    )
    expect(link.status, link.text).toBe(201)

    const page = await browser.newPage()
    const opened = await page.goto(link.json.paymentUrl)
    expect(opened?.status()).toBe(200)
    expect(await page.getByTestId("amount").textContent()).toBe("2\u00a0750 ₽")
    expect(await page.getByTestId("description").textContent()).toBe("Пополнение из браузера")
    expect(await page.getByTestId("status").getAttribute("data-status")).toBe("pending")

    await Promise.all([page.waitForURL(/result=paid/), page.getByRole("button", { name: /Оплатить/ }).click()])
    expect(await page.getByTestId("status").getAttribute("data-status")).toBe("confirmed")
    expect(await page.getByTestId("status").textContent()).toBe("Оплачено")
    expect(await page.getByRole("status").textContent()).toContain("Оплата прошла")
    expect(await page.getByRole("button").count()).toBe(0)
    await page.close()

    expect(await balanceTotal(host, partner)).toBe(2750)
  })
})
