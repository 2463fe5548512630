/**
 * The cabinet's audit log page in Chromium: a key issued and revoked and an endpoint created in
 * the cabinet show up newest first with actor, action, target, request id and the changed fields;
 * the action and date filters narrow the list; the "Older" link pages through the keyset cursor
 * without gaps or repeats; and another partner's records never appear.
 */
import { expect, it } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { describeBrowser } from "../support/browser.js"
import { useBrowserHost } from "./cabinet/browserHost.js"
import { expectAccessible, screenshots, signedIn } from "./cabinet/cabinetBrowser.js"
import { adminHeaders, freshIp, startReceiver } from "./hostClient.js"
import { call, type RunningHost } from "./spawnHost.js"

/** The rows of the audit page on screen: action and target id, top to bottom. */
const rowsOf = async (page: Page) =>
  page
    .getByTestId("audit-row")
    .evaluateAll((rows) => rows.map((r) => `${r.getAttribute("data-action")} ${r.getAttribute("data-target")}`))

/** Every record of a partner as the admin API lists it, newest first. */
const adminLog = async (host: RunningHost, partnerId: string) => {
  const items: Array<{ action: string; target: { id: string }; requestId: string | null }> = []
  let cursor: string | null = null
  do {
    const q: string = cursor === null ? "limit=100" : `limit=100&cursor=${cursor}`
    const r = await call(host, "GET", `/admin/v1/partners/${partnerId}/audit-log?${q}`, { headers: adminHeaders(host) })
    expect(r.status, r.text).toBe(200)
    items.push(...r.json.items)
    cursor = r.json.nextCursor
  } while (cursor !== null)
  return items
}

describeBrowser("partner cabinet: audit log page", () => {
  let host: RunningHost
  let browser: Browser

  useBrowserHost({ FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_TRUST_PROXY: "true" }, (started) => {
    ;({ host, browser } = started)
  })

  it("shows the partner's own changes newest first, filters them and pages with Older", async () => {
    const receiver = await startReceiver()
    const other = await signedIn(browser, host, "Other LLC", { locale: "en-GB" })
    const { context, page, partnerId } = await signedIn(browser, host, "Audit LLC", { locale: "en-GB" })

    // Changes through the cabinet: a key issued, then revoked with a reason; an endpoint created.
    await page.getByRole("link", { name: "API keys" }).click()
    await page.getByLabel("Label", { exact: true }).last().fill("audited robot")
    await page.getByRole("button", { name: "Issue key" }).click()
    expect(await page.getByTestId("new-key").textContent()).toMatch(/^svc_live_/)
    await page.goto(`${host.baseUrl}/cabinet/keys`)
    const keyRow = page.getByTestId("key-row").filter({ hasText: "audited robot" })
    await keyRow.getByText("Rename / narrow scopes").click()
    await keyRow.getByLabel("Reason (optional)").fill("rotated")
    await keyRow.getByRole("button", { name: "Revoke" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Key revoked")
    await page.getByRole("link", { name: "Webhooks" }).click()
    await page.getByLabel("URL").fill(receiver.url)
    await page.getByRole("button", { name: "Add endpoint" }).click()
    expect(await page.getByTestId("endpoint-secret").textContent()).toMatch(/^whsec_/)

    // The other partner changes things at the same time: none of it may show on this page.
    await other.page.getByRole("link", { name: "API keys" }).click()
    await other.page.getByLabel("Label", { exact: true }).last().fill("other robot")
    await other.page.getByRole("button", { name: "Issue key" }).click()
    const otherLog = await adminLog(host, other.partnerId)
    expect(otherLog.map((r) => r.action)).toContain("api_key.issued")

    await page.getByRole("link", { name: "Audit log" }).click()
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Audit log")
    const own = await adminLog(host, partnerId)
    const shown = await rowsOf(page)
    expect(shown.slice(0, 3).map((r) => r.split(" ")[0])).toEqual([
      "webhook_endpoint.created",
      "api_key.revoked",
      "api_key.issued"
    ])
    expect(shown).toEqual(own.slice(0, 20).map((r) => `${r.action} ${r.target.id}`))
    for (const r of otherLog) expect(shown.join("\n")).not.toContain(r.target.id)
    const revokedRow = page.locator('[data-testid="audit-row"][data-action="api_key.revoked"]')
    const revokedText = (await revokedRow.textContent()) ?? ""
    expect(revokedText).toContain("Cabinet session")
    expect(revokedText).not.toContain("Cabinet session: cabinet session")
    expect(revokedText).toContain("revokedAt, revokeReason")
    const revokedRecord = own.find((r) => r.action === "api_key.revoked")!
    expect(revokedRecord.requestId).toMatch(/.+/)
    expect(revokedText).toContain(revokedRecord.requestId)
    expect(await page.getByTestId("audit-older").count()).toBe(0)
    await expectAccessible(page)
    await screenshots(page, "audit")

    // Filters: one action; a date range that ends before today shows nothing.
    await page.getByLabel("Action", { exact: true }).selectOption("api_key.revoked")
    await page.getByRole("button", { name: "Apply" }).click()
    expect(await rowsOf(page)).toEqual([`api_key.revoked ${revokedRecord.target.id}`])
    await page.getByLabel("Action", { exact: true }).selectOption("")
    await page.getByLabel("To", { exact: true }).fill("2020-01-31")
    await page.getByRole("button", { name: "Apply" }).click()
    expect(await page.getByTestId("audit-row").count()).toBe(0)
    const today = new Date().toISOString().slice(0, 10)
    await page.getByLabel("To", { exact: true }).fill("")
    await page.getByLabel("From", { exact: true }).fill(today)
    await page.getByRole("button", { name: "Apply" }).click()
    expect(await rowsOf(page)).toEqual(shown)

    // More than a page: 22 renames of a key through the session-authenticated API.
    const session = await context.cookies()
    const cookie = { cookie: `service_token=${session.find((c) => c.name === "service_token")!.value}` }
    const issued = await call(host, "POST", "/v1/billing/api-keys", {
      headers: { ...cookie, "x-forwarded-for": freshIp() },
      body: { label: "renamed 0" }
    })
    expect(issued.status, issued.text).toBe(201)
    for (let i = 1; i <= 22; i++) {
      const r = await call(host, "PATCH", `/v1/billing/api-keys/${issued.json.id}`, {
        headers: { ...cookie, "x-forwarded-for": freshIp() },
        body: { label: `renamed ${i}` }
      })
      expect(r.status, r.text).toBe(200)
    }
    const all = (await adminLog(host, partnerId)).map((r) => `${r.action} ${r.target.id}`)
    await page.goto(`${host.baseUrl}/cabinet/audit`)
    const pages: Array<ReadonlyArray<string>> = [await rowsOf(page)]
    while ((await page.getByTestId("audit-older").count()) === 1) {
      await page.getByTestId("audit-older").click()
      pages.push(await rowsOf(page))
    }
    expect(pages.length).toBe(Math.ceil(all.length / 20))
    expect(pages.every((p) => p.length > 0 && p.length <= 20)).toBe(true)
    expect(pages.flat()).toEqual(all)
    expect(pages[0]![0]).toBe(`api_key.renamed ${issued.json.id}`)
    await screenshots(page, "audit-older")

    // The language switch keeps the page; the other partner sees only its own.
    await page.getByRole("link", { name: "RU" }).click()
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Журнал действий")
    await other.page.goto(`${host.baseUrl}/cabinet/audit`)
    const otherShown = await rowsOf(other.page)
    expect(otherShown).toEqual(otherLog.slice(0, 20).map((r) => `${r.action} ${r.target.id}`))
    for (const id of new Set(all.map((r) => r.split(" ")[1]))) expect(otherShown.join("\n")).not.toContain(id)
    await other.context.close()
    await context.close()
    await receiver.close()
  })

  it("a cursor or filter it cannot read is answered with a notice, not an error page", async () => {
    const { context, page } = await signedIn(browser, host, "Cursor LLC", { locale: "en-GB" })
    const res = await page.goto(`${host.baseUrl}/cabinet/audit?cursor=bm90LWEtY3Vyc29y&action=Bad%20Action`)
    expect(res?.status()).toBe(200)
    const notice = (await page.getByTestId("notice").textContent()) ?? ""
    expect(notice).toContain("cursor")
    expect(notice).toContain("action")
    expect(await page.getByTestId("audit-row").count()).toBe(0)
    await context.close()
  })
})
