/**
 * Helpers of the cabinet's browser suites: a partner signed in through the admin API's one-time
 * link, the accessibility check (axe: no serious or critical violation) and the screenshots of a
 * page at 1280×800, 375×812 and 320×640 (with the layout checks of pageLayout.ts), written to the
 * git-ignored test-results/cabinet-screenshots.
 */
import { mkdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import AxeBuilder from "@axe-core/playwright"
import { expect } from "@effect/vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { adminHeaders } from "../hostClient.js"
import { call, type RunningHost } from "../spawnHost.js"
import { brokenInTables, shortButtons } from "./pageLayout.js"

export const SCREENSHOTS = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "test-results",
  "cabinet-screenshots"
)

export const newPartnerId = async (host: RunningHost, name: string): Promise<string> => {
  const p = await call(host, "POST", "/admin/v1/partners", { headers: adminHeaders(host), body: { name } })
  expect(p.status, p.text).toBe(201)
  return p.json.id as string
}

export const signInUrl = async (host: RunningHost, partnerId: string, ttlSeconds?: number): Promise<string> => {
  const s = await call(host, "POST", `/admin/v1/partners/${partnerId}/sessions`, {
    headers: adminHeaders(host),
    body: ttlSeconds === undefined ? {} : { ttlSeconds }
  })
  expect(s.status, s.text).toBe(201)
  expect(s.json.signInUrl).toMatch(/\/cabinet\/sign-in\?token=/)
  return s.json.signInUrl as string
}

/** A browser context signed in as a new partner; the page is on the overview. */
export const signedIn = async (
  browser: Browser,
  host: RunningHost,
  name: string,
  options: { locale?: string; ttlSeconds?: number } = {}
): Promise<{ context: BrowserContext; page: Page; partnerId: string }> => {
  const partnerId = await newPartnerId(host, name)
  const context = await browser.newContext({
    locale: options.locale ?? "ru-RU",
    viewport: { width: 1280, height: 800 }
  })
  const page = await context.newPage()
  await page.goto(await signInUrl(host, partnerId, options.ttlSeconds))
  expect(new URL(page.url()).pathname).toBe("/cabinet/")
  return { context, page, partnerId }
}

/** No serious or critical axe violation on the current page. */
export const expectAccessible = async (page: Page) => {
  const result = await new AxeBuilder({ page }).analyze()
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  expect(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join("; ")})`),
    `axe on ${page.url()}`
  ).toEqual([])
}

/** The widths every cabinet page is photographed and measured at: desktop and two phones. */
export const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
  { width: 320, height: 640 }
] as const

/**
 * Screenshots of the current page at each of `WIDTHS`; at every width no word of a table cell is
 * broken inside, no amount or date wraps, buttons are at least 44 px tall, and a phone width does
 * not scroll sideways.
 */
export const screenshots = async (page: Page, name: string) => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  for (const size of WIDTHS) {
    await page.setViewportSize(size)
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size.width}x${size.height}.png`), fullPage: true })
    expect(await brokenInTables(page), `${name} at ${size.width} px`).toEqual([])
    expect(await shortButtons(page), `${name} at ${size.width} px`).toEqual([])
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow, `${name} scrolls sideways at ${size.width} px`).toBeLessThanOrEqual(0)
  }
  await page.setViewportSize(WIDTHS[0])
}
