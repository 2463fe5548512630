/**
 * The top-up flow in a real browser: headless Chromium (Debian's package, driven by
 * playwright-core, which downloads nothing) opens a payment link of the spawned host, reads the
 * sandbox checkout page and presses "Pay"; the page then shows the payment confirmed and the
 * partner's balance has risen. Needs /usr/bin/chromium or CHROMIUM_PATH (test/support/browser.ts:
 * skipped with a notice without it, required in CI).
 */
import { randomUUID } from "node:crypto"
import { expect, it } from "@effect/vitest"
import type { Browser } from "playwright-core"
import { describeBrowser } from "../support/browser.js"
import { useBrowserHost } from "./cabinet/browserHost.js"
import type { RunningHost } from "./spawnHost.js"
import { balanceTotal, createLink, newTopUpPartner } from "./topUpSetup.js"

describeBrowser("top-up in a browser", () => {
  let host: RunningHost
  let browser: Browser

  useBrowserHost({ FRANK_TRUST_PROXY: "true" }, (started) => {
    ;({ host, browser } = started)
  })
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
