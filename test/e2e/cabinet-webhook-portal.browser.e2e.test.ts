/**
 * The cabinet's webhook portal in Chromium, in English and Russian: an endpoint's page (health,
 * 24 h / 7 d charts, signature scheme, recovery, pause / resume, rotate, delete), a delivery's page
 * (payload, attempts with the receiver's body, replay), the log's filters and paging links, and the
 * event catalog's "send this example". Every page is checked with axe and photographed at 1280,
 * 375 and 320 px with the layout checks.
 */
import { expect, it } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { describeBrowser } from "../support/browser.js"
import { useBrowserHost } from "./cabinet/browserHost.js"
import { expectAccessible, screenshots, signedIn } from "./cabinet/cabinetBrowser.js"
import { advanceClock, envelopeOf, hostNow, type Receiver, startReceiver, waitFor } from "./hostClient.js"
import type { RunningHost } from "./spawnHost.js"

const BODY = "thanks, got it"

/** `datetime-local` text (UTC) of `ms`. */
const localUtc = (ms: number) => new Date(ms).toISOString().slice(0, 16)

/** Adds an endpoint on the webhooks page and opens its page; answers the endpoint page's path. */
const addEndpointOn = async (host: RunningHost, page: Page, receiver: Receiver, add: string) => {
  await page.goto(`${host.baseUrl}/cabinet/webhooks`)
  await page.locator('input[name="url"]').fill(receiver.url)
  await page.getByRole("button", { name: add }).click()
  await page.getByTestId("endpoint-row").getByTestId("endpoint-link").click()
  return new URL(page.url()).pathname
}

describeBrowser("partner cabinet: the webhook portal", () => {
  let host: RunningHost
  let browser: Browser

  useBrowserHost({ FRANK_ALLOW_PRIVATE_NETWORK: "true" }, (started) => {
    ;({ host, browser } = started)
  })

  const addEndpoint = (page: Page, receiver: Receiver, add: string) => addEndpointOn(host, page, receiver, add)

  /** Reloads `path` until its first delivery row has `status`. */
  const deliveryShown = (page: Page, path: string, status: string) =>
    waitFor(
      `a ${status} delivery`,
      async () => {
        await page.goto(`${host.baseUrl}${path}`)
        return (await page.locator(`[data-testid="delivery-row"][data-status="${status}"]`).count()) > 0
          ? true
          : undefined
      },
      { intervalMs: 1_000 }
    )

  it("in English: endpoint page, message page, filters, catalog example, scheme, recovery and actions", async () => {
    const receiver = await startReceiver({ status: 200, body: BODY })
    const { context, page } = await signedIn(browser, host, "Portal LLC", { locale: "en-GB" })
    const endpointPath = await addEndpoint(page, receiver, "Add endpoint")
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Endpoint")
    expect(await page.getByTestId("endpoint-url").textContent()).toBe(receiver.url)
    expect(await page.getByTestId("last-success").textContent()).toBe("Never")
    expect(await page.getByTestId("rotation-rule").textContent()).toContain("6 hours")

    await page.getByRole("button", { name: "Send test" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Test event queued")
    const first = envelopeOf(await receiver.nth(1))
    await deliveryShown(page, "/cabinet/webhooks", "delivered")

    // The endpoint page now counts the attempt in both periods and shows the success.
    await page.goto(`${host.baseUrl}${endpointPath}`)
    expect(await page.getByTestId("chart-day").getAttribute("data-attempts")).toBe("1")
    expect(await page.getByTestId("chart-week").getAttribute("data-succeeded")).toBe("1")
    expect(await page.getByTestId("chart-day").textContent()).toContain("Success rate 100 %")
    expect(await page.getByTestId("last-success").textContent()).not.toBe("Never")
    await page.getByTestId("scheme").selectOption("both")
    await page.getByRole("button", { name: "Save scheme" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Signature scheme saved")
    expect(await page.getByTestId("scheme").inputValue()).toBe("both")
    await page.getByLabel("From (UTC)").fill(localUtc(Date.now() - 86_400_000))
    await page.getByRole("button", { name: "Recover" }).click()
    expect(await page.getByTestId("recovery").getAttribute("data-remaining")).toBe("0")
    expect(await page.getByTestId("recovery").textContent()).toContain("Queued again: 0")
    await expectAccessible(page)
    await screenshots(page, "portal-endpoint-en")

    // The message page: payload, the attempt with the receiver's body, replay back to it.
    await page.goto(`${host.baseUrl}/cabinet/webhooks`)
    await page.getByTestId("delivery-link").first().click()
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Delivery")
    expect(JSON.parse((await page.getByTestId("payload").textContent()) ?? "")).toEqual(first)
    expect(await page.getByTestId("attempt-code").first().textContent()).toBe("200")
    expect(await page.getByTestId("attempt-body").first().textContent()).toBe(BODY)
    expect(await page.getByTestId("attempt-duration").first().textContent()).toMatch(/^\d[\d,]* ms$/)
    await expectAccessible(page)
    await screenshots(page, "portal-message-en")
    await page.getByRole("button", { name: "Replay" }).click()
    expect(new URL(page.url()).pathname).toMatch(/^\/cabinet\/webhooks\/deliveries\//)
    expect(await page.getByTestId("notice").textContent()).toContain("same event id")
    expect(envelopeOf(await receiver.nth(2)).eventId).toBe(first.eventId)

    // The catalog: every type with schema and example; an example goes out as a marked test.
    await page.goto(`${host.baseUrl}/cabinet/webhooks`)
    await page.getByTestId("catalog-link").click()
    expect(await page.getByTestId("event-type").count()).toBeGreaterThanOrEqual(12)
    const settled = page.locator('[data-testid="event-type"][data-type="task.succeeded"]')
    await settled.getByRole("button", { name: "Send this example" }).click()
    expect(await page.getByTestId("notice").textContent()).toContain("Example queued")
    const example = envelopeOf(await receiver.nth(3)) as { eventType: string; data: Record<string, unknown> }
    expect(example.eventType).toBe("webhook.test")
    expect(example.data.exampleOf).toBe("task.succeeded")
    expect(example.data.example).toMatchObject({ status: "succeeded" })
    await expectAccessible(page)
    await screenshots(page, "portal-catalog-en")

    // Filters: by type (none of billing.settled), by endpoint and date, and the paging link keeps them.
    await page.goto(`${host.baseUrl}/cabinet/webhooks?eventType=billing.settled`)
    expect(await page.getByTestId("delivery-row").count()).toBe(0)
    const today = new Date().toISOString().slice(0, 10)
    await page.goto(`${host.baseUrl}/cabinet/webhooks`)
    await page.locator('select[name="eventType"]').selectOption("webhook.test")
    await page.locator('input[name="from"]').fill(today)
    await page.locator('input[name="to"]').fill(today)
    await page.getByRole("button", { name: "Apply" }).click()
    expect(await page.getByTestId("delivery-row").count()).toBe(2)
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
    await page.goto(`${host.baseUrl}/cabinet/webhooks?from=${tomorrow}`)
    expect(await page.getByTestId("delivery-row").count()).toBe(0)
    await page.goto(`${host.baseUrl}/cabinet/webhooks?eventType=webhook.test&from=${today}`)
    await expectAccessible(page)
    await screenshots(page, "portal-log-en")

    // Pause / resume, rotate and delete from the endpoint page.
    await page.goto(`${host.baseUrl}${endpointPath}`)
    await page.getByRole("button", { name: "Pause" }).click()
    expect(await page.getByTestId("endpoint-state").textContent()).toBe("Paused")
    expect(await page.getByTestId("disabled-reason").textContent()).toBe("Paused by you")
    await page.getByRole("button", { name: "Resume" }).click()
    expect(await page.getByTestId("endpoint-state").textContent()).toBe("Active")
    await page.getByRole("button", { name: "Rotate secret" }).click()
    expect(await page.getByTestId("endpoint-secret").textContent()).toMatch(/^whsec_/)
    await page.getByRole("button", { name: "Delete" }).click()
    expect(new URL(page.url()).pathname).toBe("/cabinet/webhooks")
    expect(await page.getByTestId("endpoint-row").count()).toBe(0)
    await context.close()
    await receiver.close()
  }, 240_000)

  it("in Russian: the same pages in Russian words, accessible and unbroken at every width", async () => {
    const receiver = await startReceiver({ status: 503, body: "временно недоступно" })
    const { context, page } = await signedIn(browser, host, "Портал ООО")
    const endpointPath = await addEndpoint(page, receiver, "Добавить адрес")
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Эндпоинт")
    expect(await page.getByTestId("last-success").textContent()).toBe("Ни разу")
    await page.getByRole("button", { name: "Отправить тест" }).click()
    await receiver.nth(1)
    await waitFor(
      "the failed attempt on the endpoint page",
      async () => {
        await page.goto(`${host.baseUrl}${endpointPath}`)
        return (await page.getByTestId("chart-day").getAttribute("data-attempts")) === "1" ? true : undefined
      },
      { intervalMs: 1_000 }
    )
    expect(await page.getByTestId("chart-day").textContent()).toContain("Успешных 0 %")
    await expectAccessible(page)
    await screenshots(page, "portal-endpoint-ru")

    await page.goto(`${host.baseUrl}/cabinet/webhooks`)
    await page.getByTestId("delivery-link").first().click()
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Доставка")
    expect(await page.getByTestId("attempt-code").first().textContent()).toBe("503")
    expect(await page.getByTestId("attempt-body").first().textContent()).toBe("временно недоступно")
    expect(await page.getByTestId("attempt-error").first().textContent()).toBe("HTTP 503")
    await expectAccessible(page)
    await screenshots(page, "portal-message-ru")

    await page.goto(`${host.baseUrl}/cabinet/webhooks/events`)
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Каталог событий")
    expect(await page.locator('[data-type="task.succeeded"] p').first().textContent()).toBe(
      "Задача генерации выполнена."
    )
    await expectAccessible(page)
    await screenshots(page, "portal-catalog-ru")

    await page.goto(`${host.baseUrl}/cabinet/webhooks?eventType=webhook.test`)
    expect(await page.locator('select[name="eventType"]').inputValue()).toBe("webhook.test")
    expect(await page.locator('label:has(select[name="eventType"])').textContent()).toContain("Тип события")
    await expectAccessible(page)
    await screenshots(page, "portal-log-ru")

    const missing = await page.goto(`${host.baseUrl}/cabinet/webhooks/deliveries/not-an-id`)
    expect(missing?.status()).toBe(404)
    await context.close()
    await receiver.close()
  }, 240_000)
})

describeBrowser("partner cabinet: a recovery larger than one call", () => {
  let host: RunningHost
  let browser: Browser

  // One delivery per recovery call, and a clock the test moves through the retry schedule.
  useBrowserHost(
    { FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_SANDBOX_CLOCK: "true", FRANK_WEBHOOK_RECOVER_PER_CALL: "1" },
    (started) => {
      ;({ host, browser } = started)
    }
  )

  const languages = [
    {
      locale: "en-GB",
      add: "Add endpoint",
      sendTest: "Send test",
      since: "From (UTC)",
      recover: "Recover",
      continue: "Continue",
      recovered: (requeued: number, remaining: number) =>
        `Queued again: ${requeued}. Still failed in the window: ${remaining}.`
    },
    {
      locale: "ru-RU",
      add: "Добавить адрес",
      sendTest: "Отправить тест",
      since: "С (UTC)",
      recover: "Восстановить",
      continue: "Продолжить",
      recovered: (requeued: number, remaining: number) =>
        `Снова в очереди: ${requeued}. Ещё не доставлено в окне: ${remaining}.`
    }
  ]

  for (const words of languages)
    it(`shows what remains and continues the same window until nothing does (${words.locale})`, async () => {
      const receiver = await startReceiver({ status: 503 })
      // The session outlives the day and a half the schedule takes on the sandbox clock.
      const { context, page } = await signedIn(browser, host, "Continue LLC", {
        locale: words.locale,
        ttlSeconds: 7 * 86_400
      })
      const endpointPath = await addEndpointOn(host, page, receiver, words.add)
      const since = (await hostNow(host)) - 3_600_000
      for (const n of [1, 2]) {
        await page.getByRole("button", { name: words.sendTest }).click()
        await receiver.nth(n)
      }
      // Every wait of the schedule is at most six hours: each step makes every retry written so far due.
      await waitFor(
        "two dead-lettered deliveries",
        async () => {
          await advanceClock(host, 21_600)
          await page.goto(`${host.baseUrl}/cabinet/webhooks`)
          return (await page.locator('[data-testid="delivery-row"][data-status="dead_lettered"]').count()) === 2
            ? true
            : undefined
        },
        { timeoutMs: 120_000, intervalMs: 1_000 }
      )
      expect(receiver.received).toHaveLength(12)

      receiver.setReply({ status: 200 })
      await page.goto(`${host.baseUrl}${endpointPath}`)
      await page.getByLabel(words.since).fill(localUtc(since))
      await page.getByRole("button", { name: words.recover, exact: true }).click()
      expect(await page.getByTestId("recovery").getAttribute("data-remaining")).toBe("1")
      expect(await page.getByTestId("recovery").textContent()).toContain(words.recovered(1, 1))
      await expectAccessible(page)
      await screenshots(page, `portal-recovery-continue-${words.locale}`)
      await page.getByRole("button", { name: words.continue }).click()
      expect(await page.getByTestId("recovery").getAttribute("data-remaining")).toBe("0")
      expect(await page.getByTestId("recovery").textContent()).toContain(words.recovered(1, 0))
      expect(await page.getByRole("button", { name: words.continue }).count()).toBe(0)
      // Each event once more, answered 200.
      await receiver.nth(14)
      const recovered = receiver.received.slice(12).map((r) => envelopeOf(r).eventId)
      expect(new Set(recovered).size).toBe(2)
      await context.close()
      await receiver.close()
    }, 240_000)
})
