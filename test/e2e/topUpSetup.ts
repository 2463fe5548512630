/**
 * Helpers of the top-up end-to-end tests: a partner with a full key, its own client address
 * (the host runs with FRANK_TRUST_PROXY=true, so per-IP limits of one test do not count against
 * another's), a loopback webhook receiver, and polling with a deadline.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { expect } from "@effect/vitest"
import { call, type RunningHost } from "./spawnHost.js"

type Host = Pick<RunningHost, "baseUrl" | "adminToken">

export const admin = (host: Host) => ({ authorization: `Bearer ${host.adminToken}` })

let nextIp = 1
/** A distinct client address for X-Forwarded-For (never dialled: only a rate-limit identity). */
export const freshIp = (): string => {
  const n = nextIp++
  return `10.77.${(n >> 8) & 255}.${n & 255}`
}

export interface TopUpPartner {
  readonly id: string
  readonly cookie: Record<string, string>
  /** Headers of a full key from this partner's own address. */
  readonly key: Record<string, string>
  readonly rawKey: string
}

export const newTopUpPartner = async (host: Host, name: string): Promise<TopUpPartner> => {
  const p = await call(host, "POST", "/admin/v1/partners", { headers: admin(host), body: { name } })
  expect(p.status, p.text).toBe(201)
  const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin(host), body: {} })
  expect(s.status, s.text).toBe(201)
  const cookie = { cookie: `service_token=${s.json.token}`, "x-forwarded-for": freshIp() }
  const k = await call(host, "POST", "/v1/billing/api-keys", { headers: cookie, body: { label: "top-ups" } })
  expect(k.status, k.text).toBe(201)
  return { id: p.json.id, cookie, key: { "x-api-key": k.json.key, "x-forwarded-for": freshIp() }, rawKey: k.json.key }
}

export const createLink = (
  host: Host,
  partner: TopUpPartner,
  body: object,
  idempotencyKey: string | undefined,
  ip: string = freshIp()
) =>
  call(host, "POST", "/v1/billing/payment/link", {
    headers: {
      ...partner.key,
      "x-forwarded-for": ip,
      ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
    },
    body
  })

export const balanceTotal = async (host: Host, partner: TopUpPartner): Promise<number> => {
  const b = await call(host, "GET", "/v1/billing/balance", { headers: partner.key })
  expect(b.status, b.text).toBe(200)
  return b.json.total as number
}

export const waitFor = async <A>(
  what: string,
  probe: () => Promise<A | undefined> | A | undefined,
  timeoutMs = 20_000
): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

export interface ReceivedWebhook {
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

/** A webhook receiver on loopback that records every request and answers 200. */
export const startWebhookReceiver = async () => {
  const received: ReceivedWebhook[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(200).end("ok")
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}

/** Registers a webhook endpoint for billing.topup.confirmed at `url`. */
export const subscribeTopUps = async (host: Host, partner: TopUpPartner, url: string) => {
  const r = await call(host, "POST", "/v1/webhooks/endpoints", {
    headers: partner.key,
    body: { url, eventTypes: ["billing.topup.confirmed"] }
  })
  expect(r.status, r.text).toBe(201)
  return r.json as { id: string; secret: string }
}
