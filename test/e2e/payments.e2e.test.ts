/**
 * Top-ups end to end: the real host process on embedded PGlite, spoken to over HTTP as a
 * partner's integration, the payer's browser (HTML form posts) and an operator do. A payment
 * link opens the sandbox acquirer's checkout page; paying there notifies Frank through the same
 * path as a real acquirer's callback, the balance rises once, and billing.topup.confirmed
 * reaches the partner's webhook receiver.
 */
import { randomUUID } from "node:crypto"
import { WebhookReceiver } from "@frank/core"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"
import {
  admin,
  balanceTotal,
  createLink,
  freshIp,
  newTopUpPartner,
  startWebhookReceiver,
  subscribeTopUps,
  waitFor
} from "./topUpSetup.js"

let host: RunningHost
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  host = await spawnHost({ FRANK_TRUST_PROXY: "true", FRANK_ALLOW_PRIVATE_NETWORK: "true" })
}, 120_000)

afterAll(async () => {
  const code = await host?.stop()
  await receiver?.close()
  expect(code).toBe(0)
}, 60_000)

/** The action URL of the checkout page's form whose button has `buttonClass`. */
const formAction = (html: string, buttonClass: "pay" | "decline"): string => {
  const forms = [...html.matchAll(/<form method="post" action="([^"]+)"><button([^>]*)>/g)]
  const form = forms.find((m) =>
    buttonClass === "pay" ? m[2]!.includes('class="pay"') : m[2]!.includes('value="decline"')
  )
  if (form === undefined) throw new Error(`no ${buttonClass} form on the page:\n${html}`)
  return form[1]!
}

/** Submits a checkout form as a browser does (urlencoded POST, redirect not followed). */
const submitForm = (action: string, value: string) =>
  fetch(new URL(action, host.baseUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ action: value }).toString(),
    redirect: "manual"
  })

describe("top-ups through the sandbox checkout page", () => {
  it("link → checkout page → pay → the balance rises once → billing.topup.confirmed is delivered", async () => {
    const partner = await newTopUpPartner(host, "Checkout LLC")
    const endpoint = await subscribeTopUps(host, partner, receiver.url)
    const key = `order-${randomUUID()}`

    const link = await createLink(host, partner, { amountRub: 1500, description: "Пополнение <тест>" }, key)
    expect(link.status, link.text).toBe(201)
    expect(link.json).toMatchObject({ status: "pending", amountRub: 1500, description: "Пополнение <тест>" })
    const { paymentId, paymentUrl } = link.json as { paymentId: string; paymentUrl: string }
    expect(paymentUrl).toBe(`${host.baseUrl}/sandbox/checkout/${paymentId}`)
    expect(await balanceTotal(host, partner)).toBe(0)

    // The payer opens the link.
    const page = await fetch(paymentUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    const html = await page.text()
    expect(html).toContain("1\u00a0500 ₽")
    expect(html).toContain("Пополнение &lt;тест&gt;") // escaped, never markup
    expect(html).toContain('data-status="pending"')

    // … and presses "Pay": POST, then redirected back to the page, which shows the new status.
    const paid = await submitForm(formAction(html, "pay"), "pay")
    expect(paid.status).toBe(303)
    const after = await fetch(new URL(paid.headers.get("location")!, host.baseUrl))
    const afterHtml = await after.text()
    expect(afterHtml).toContain('data-status="confirmed"')
    expect(afterHtml).toContain("Оплата прошла")
    expect(afterHtml).not.toContain("<form")

    expect(await balanceTotal(host, partner)).toBe(1500)
    const history = await call(host, "GET", "/v1/billing/payment/history", { headers: partner.key })
    expect(history.status).toBe(200)
    expect(history.json.items).toHaveLength(1)
    expect(history.json.items[0]).toMatchObject({ paymentId, status: "confirmed", amountRub: 1500, paymentUrl })

    const topups = await call(host, "GET", "/v1/billing/transactions?type=topup", { headers: partner.key })
    expect(topups.status, topups.text).toBe(200)
    expect(topups.json.items).toHaveLength(1)

    // The event reaches the partner's receiver, signed, with the payment id.
    const delivered = await waitFor("billing.topup.confirmed at the receiver", () =>
      receiver.received.find((r) => {
        const body = JSON.parse(r.body)
        return body.eventType === "billing.topup.confirmed" && body.data.paymentId === paymentId ? r : undefined
      })
    )
    const event = JSON.parse(delivered.body)
    expect(event).toMatchObject({ partnerId: partner.id, data: { paymentId, amountFranks: 1500 } })
    expect(typeof event.data.transactionId).toBe("string")
    const verified = await WebhookReceiver.verifyWebhook({
      secret: endpoint.secret,
      headers: delivered.headers,
      rawBody: delivered.body,
      now: Date.now()
    })
    expect(verified.ok).toBe(true)
    const deliveries = await call(host, "GET", "/v1/webhooks/deliveries", { headers: partner.key })
    expect(deliveries.json.deliveries.map((d: { eventType: string }) => d.eventType)).toEqual([
      "billing.topup.confirmed"
    ])

    // Paying again (a reload, a double click) and the operator's confirm change nothing.
    const again = await submitForm(`/sandbox/checkout/${paymentId}/pay`, "pay")
    expect(again.status).toBe(303)
    const confirm = await call(host, "POST", `/admin/v1/sandbox/payments/${paymentId}/confirm`, {
      headers: admin(host)
    })
    expect(confirm.status, confirm.text).toBe(200)
    expect(confirm.json).toMatchObject({ paymentId, status: "confirmed", changed: false, transactionId: null })
    // The same key and amount answer the same (now confirmed) payment.
    const replay = await createLink(host, partner, { amountRub: 1500 }, key)
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.json).toMatchObject({ paymentId, status: "confirmed" })
    expect(await balanceTotal(host, partner)).toBe(1500)
  })

  it("declining on the checkout page rejects the payment and credits nothing", async () => {
    const partner = await newTopUpPartner(host, "Decline LLC")
    const link = await createLink(host, partner, { amountRub: 300 }, randomUUID())
    expect(link.status, link.text).toBe(201)
    const html = await (await fetch(link.json.paymentUrl)).text()
    const declined = await submitForm(formAction(html, "decline"), "decline")
    expect(declined.status).toBe(303)
    const after = await (await fetch(new URL(declined.headers.get("location")!, host.baseUrl))).text()
    expect(after).toContain('data-status="rejected"')
    // Paying after declining is refused by the acquirer.
    const late = await submitForm(`/sandbox/checkout/${link.json.paymentId}/pay`, "pay")
    expect(late.status).toBe(409)
    const history = await call(host, "GET", "/v1/billing/payment/history", { headers: partner.key })
    expect(history.json.items[0]).toMatchObject({ paymentId: link.json.paymentId, status: "rejected" })
    expect(await balanceTotal(host, partner)).toBe(0)
    expect((await fetch(`${host.baseUrl}/sandbox/checkout/${randomUUID()}`)).status).toBe(404)
  })

  it("20 concurrent link requests with one key and amount create one payment", async () => {
    const partner = await newTopUpPartner(host, "Retry Storm LLC")
    const key = `storm-${randomUUID()}`
    // Each from its own address: the per-IP limit of this route is 3/min.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => createLink(host, partner, { amountRub: 700 }, key, freshIp()))
    )
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 201))
    expect(new Set(answers.map((a) => a.json.paymentId)).size).toBe(1)
    expect(new Set(answers.map((a) => a.json.paymentUrl)).size).toBe(1)
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === null)).toHaveLength(1)
    const history = await call(host, "GET", "/v1/billing/payment/history", { headers: partner.key })
    expect(history.json.items).toHaveLength(1)
  })

  it("validation, the idempotency conflict, full keys only, and the per-IP limit of 3/min", async () => {
    const partner = await newTopUpPartner(host, "Rules LLC")
    const missingKey = await createLink(host, partner, { amountRub: 100 }, undefined)
    expect(missingKey.status).toBe(400)
    expect(missingKey.json.code).toBe("VALIDATION_FAILED")
    expect(missingKey.json.message.join(" ")).toMatch(/idempotency-key/i)
    const bad = await createLink(host, partner, { amountRub: 100_001, description: "x".repeat(141) }, "ok")
    expect(bad.status).toBe(400)
    expect(bad.json.message).toHaveLength(2)
    const longKey = await createLink(host, partner, { amountRub: 100 }, "k".repeat(129))
    expect(longKey.status).toBe(400)
    expect(longKey.json.message.join(" ")).toContain("at most 128")
    expect((await createLink(host, partner, { amountRub: 0 }, "zero")).status).toBe(400)
    // Numeric strings are coerced (spec "Errors").
    const coerced = await createLink(host, partner, { amountRub: "250" }, "same-key")
    expect(coerced.status, coerced.text).toBe(201)
    expect(coerced.json.amountRub).toBe(250)
    const conflict = await createLink(host, partner, { amountRub: 251 }, "same-key")
    expect(conflict.status).toBe(409)
    expect(conflict.json).toMatchObject({ statusCode: 409, code: "PAYMENT_IDEMPOTENCY_CONFLICT" })

    // No scope opens payment links: even a key restricted to every scope is refused; billing:read reads the history.
    const restricted = await call(host, "POST", "/v1/billing/api-keys", {
      headers: partner.cookie,
      body: {
        scopes: [
          "usage:read",
          "billing:read",
          "pricing:read",
          "tasks:read",
          "media:run",
          "webhooks:read",
          "webhooks:manage"
        ]
      }
    })
    expect(restricted.status, restricted.text).toBe(201)
    const refused = await call(host, "POST", "/v1/billing/payment/link", {
      headers: { "x-api-key": restricted.json.key, "idempotency-key": "r-1", "x-forwarded-for": freshIp() },
      body: { amountRub: 100 }
    })
    expect(refused.status).toBe(403)
    expect(refused.json.code).toBe("API_KEY_SCOPE_REQUIRED")
    const history = await call(host, "GET", "/v1/billing/payment/history", {
      headers: { "x-api-key": restricted.json.key }
    })
    expect(history.status).toBe(200)
    expect(history.json.items.map((p: { amountRub: number }) => p.amountRub)).toEqual([250])

    // Spec "Limits": 3 payment-link requests per minute per IP.
    const ip = freshIp()
    const statuses = []
    for (let i = 0; i < 4; i++)
      statuses.push((await createLink(host, partner, { amountRub: 10 }, `ip-${i}`, ip)).status)
    expect(statuses).toEqual([201, 201, 201, 429])
  })

  it("admin sandbox controls move payments through the notification path; a confirmation after a cancel is refused", async () => {
    const partner = await newTopUpPartner(host, "Operator LLC")
    const a = (await createLink(host, partner, { amountRub: 900 }, randomUUID())).json
    const canceled = await call(host, "POST", `/admin/v1/sandbox/payments/${a.paymentId}/cancel`, {
      headers: admin(host)
    })
    expect(canceled.status, canceled.text).toBe(200)
    expect(canceled.json).toMatchObject({
      paymentId: a.paymentId,
      status: "canceled",
      changed: true,
      transactionId: null
    })
    const confirm = await call(host, "POST", `/admin/v1/sandbox/payments/${a.paymentId}/confirm`, {
      headers: admin(host)
    })
    expect(confirm.status).toBe(409)
    expect(confirm.json.code).toBe("PAYMENT_TRANSITION_REFUSED")

    const b = (await createLink(host, partner, { amountRub: 400 }, randomUUID())).json
    const confirmed = await call(host, "POST", `/admin/v1/sandbox/payments/${b.paymentId}/confirm`, {
      headers: admin(host)
    })
    expect(confirmed.status, confirmed.text).toBe(200)
    expect(confirmed.json).toMatchObject({ status: "confirmed", changed: true })
    expect(typeof confirmed.json.transactionId).toBe("string")
    const c = (await createLink(host, partner, { amountRub: 50 }, randomUUID())).json
    const failed = await call(host, "POST", `/admin/v1/sandbox/payments/${c.paymentId}/fail`, { headers: admin(host) })
    expect(failed.json.status).toBe("failed")
    const d = (await createLink(host, partner, { amountRub: 60 }, randomUUID())).json
    const rejected = await call(host, "POST", `/admin/v1/sandbox/payments/${d.paymentId}/reject`, {
      headers: admin(host)
    })
    expect(rejected.json.status).toBe("rejected")

    expect(await balanceTotal(host, partner)).toBe(400)
    const history = await call(host, "GET", "/v1/billing/payment/history", { headers: partner.key })
    expect(history.json.items.map((p: { status: string }) => p.status)).toEqual([
      "rejected",
      "failed",
      "confirmed",
      "canceled"
    ])

    expect(
      (await call(host, "POST", `/admin/v1/sandbox/payments/${randomUUID()}/confirm`, { headers: admin(host) })).status
    ).toBe(404)
    expect(
      (await call(host, "POST", `/admin/v1/sandbox/payments/${a.paymentId}/refund`, { headers: admin(host) })).status
    ).toBe(400)
    expect((await call(host, "POST", `/admin/v1/sandbox/payments/${a.paymentId}/confirm`)).status).toBe(401)
  })

  it("the acquirer callback endpoint refuses a forged notification", async () => {
    const partner = await newTopUpPartner(host, "Forgery LLC")
    const link = (await createLink(host, partner, { amountRub: 5000 }, randomUUID())).json
    const body = JSON.stringify({
      OrderId: link.paymentId,
      PaymentId: "sbx_forged",
      Status: "CONFIRMED",
      Amount: 500_000
    })
    const forged = await fetch(`${host.baseUrl}/payments/notifications`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-sandbox-signature": `sha256=${"ab".repeat(32)}`,
        "x-forwarded-for": freshIp()
      },
      body
    })
    expect(forged.status).toBe(400)
    expect(await balanceTotal(host, partner)).toBe(0)
    const history = await call(host, "GET", "/v1/billing/payment/history", { headers: partner.key })
    expect(history.json.items[0].status).toBe("pending")
  })
})
