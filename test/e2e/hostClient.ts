/**
 * Helpers for end-to-end tests that talk to a spawned host as an operator and a partner's
 * integration do: admin setup (partner, session, credits, sandbox clock), API keys, polling with
 * a deadline, and real webhook receivers on loopback that record the raw bytes they are sent.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { expect } from "@effect/vitest"
import { call, type RunningHost } from "./spawnHost.js"

type Host = Pick<RunningHost, "baseUrl" | "adminToken">

export const adminHeaders = (host: Host) => ({ authorization: `Bearer ${host.adminToken}` })

/** Moves the host's sandbox clock forward (FRANK_SANDBOX_CLOCK=true) and answers its new time in epoch ms. */
export const advanceClock = async (host: Host, seconds: number): Promise<number> => {
  const r = await call(host, "POST", "/admin/v1/sandbox/clock/advance", {
    headers: adminHeaders(host),
    body: { seconds }
  })
  expect(r.status, r.text).toBe(200)
  return Date.parse(r.json.now)
}

/** The host's current time (the sandbox clock), in epoch ms. */
export const hostNow = (host: Host): Promise<number> => advanceClock(host, 0)

export const adminCredit = async (
  host: Host,
  partnerId: string,
  amountFranks: number,
  kind: "bonus" | "adjustment"
) => {
  const r = await call(host, "POST", `/admin/v1/partners/${partnerId}/credits`, {
    headers: adminHeaders(host),
    body: { amountFranks, kind }
  })
  expect(r.status, r.text).toBe(201)
  return r.json as { transactionId: string; replayed: boolean }
}

let nextIp = 1
/**
 * A distinct client address (the host must run with FRANK_TRUST_PROXY=true to honour it), so the
 * per-IP limits of one test's requests do not count against another's.
 */
export const freshIp = (): string => {
  const n = nextIp++
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
}

export interface Partner {
  readonly id: string
  /** The cabinet session cookie. */
  readonly cookie: Record<string, string>
  /** Headers of a full API key, from the partner's own client address. */
  readonly key: Record<string, string>
  /** Headers of a second key restricted to webhooks:read, from another address: for polling the delivery log. */
  readonly monitor: Record<string, string>
}

export const issueKey = async (host: Host, cookie: Record<string, string>, body: object = {}) => {
  const k = await call(host, "POST", "/v1/billing/api-keys", { headers: cookie, body })
  expect(k.status, k.text).toBe(201)
  return { raw: k.json.key as string, id: k.json.id as string }
}

export const keyHeaders = (raw: string, ip: string = freshIp()) => ({ "x-api-key": raw, "x-forwarded-for": ip })

/** A partner with a session, a full key and a webhooks:read monitoring key. */
export const newPartner = async (host: Host, name: string): Promise<Partner> => {
  const p = await call(host, "POST", "/admin/v1/partners", { headers: adminHeaders(host), body: { name } })
  expect(p.status, p.text).toBe(201)
  const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, {
    headers: adminHeaders(host),
    body: {}
  })
  expect(s.status, s.text).toBe(201)
  const cookie = { cookie: `service_token=${s.json.token}`, "x-forwarded-for": freshIp() }
  const full = await issueKey(host, cookie, { label: "integration" })
  const monitor = await issueKey(host, cookie, { label: "monitor", scopes: ["webhooks:read"] })
  return { id: p.json.id as string, cookie, key: keyHeaders(full.raw), monitor: keyHeaders(monitor.raw) }
}

/**
 * Polls `probe` until it answers something other than undefined, or fails after the deadline.
 * `intervalMs` keeps API polling inside the per-key rate limit.
 */
export const waitFor = async <A>(
  what: string,
  probe: () => Promise<A | undefined> | A | undefined,
  options: { timeoutMs?: number; intervalMs?: number } = {}
) => {
  const deadline = performance.now() + (options.timeoutMs ?? 15_000)
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250))
  }
}

// ---------------------------------------------------------------------------------------------
// Receivers

export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The raw body bytes, exactly as received. */
  readonly body: Buffer
}

/** How a receiver answers: a status (optionally after a delay), or hold the request open forever. */
/** A status (body "ok" unless `body` says otherwise), optionally after a delay; or hold the request open. */
export type Reply = { readonly status: number; readonly delayMs?: number; readonly body?: string } | "hold"

export interface Receiver {
  readonly url: string
  readonly received: ReadonlyArray<ReceivedRequest>
  setReply: (reply: Reply) => void
  /** Waits until at least `count` requests have arrived; answers the `count`-th. */
  nth: (count: number, timeoutMs?: number) => Promise<ReceivedRequest>
  close: () => Promise<void>
}

export const startReceiver = async (initial: Reply = { status: 200 }): Promise<Receiver> => {
  const received: Array<ReceivedRequest> = []
  const held: Array<ServerResponse> = []
  let reply = initial
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks)
      })
      const r = reply
      if (r === "hold") held.push(res)
      else if (r.delayMs === undefined) res.writeHead(r.status).end(r.body ?? "ok")
      else setTimeout(() => res.writeHead(r.status).end(r.body ?? "ok"), r.delayMs)
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    setReply: (r) => {
      reply = r
    },
    nth: (count, timeoutMs = 15_000) =>
      waitFor(`request #${count} at the receiver (got ${received.length})`, () => received[count - 1], {
        timeoutMs,
        intervalMs: 50
      }),
    close: async () => {
      for (const r of held) r.destroy()
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  }
}

/** The JSON envelope of a received webhook. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary envelopes
export const envelopeOf = (r: ReceivedRequest): any => JSON.parse(r.body.toString("utf8"))
