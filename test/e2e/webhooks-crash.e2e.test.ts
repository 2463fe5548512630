/**
 * Webhook delivery across process deaths, end to end: the real host process, a real receiver on
 * loopback (FRANK_ALLOW_PRIVATE_NETWORK=true), the embedded database kept across restarts.
 *
 * - SIGKILL while the receiver holds the request: after a restart the delivery becomes
 *   `uncertain` once its lease has run out, is never retried automatically, and a replay delivers
 *   it with the same eventId and the same bytes.
 * - SIGTERM while an attempt is in flight: the host lets it finish, exits 0, and the delivery is
 *   `delivered`, not uncertain.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { WebhookReceiver } from "@frank/core"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const ENV = { FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_SANDBOX_CLOCK: "true" }
/** The worker's lease (DeliveryWorker defaultWorkerConfig) plus a margin. */
const PAST_LEASE_SECONDS = 61

interface Received {
  readonly eventId: string
  readonly body: Buffer
  readonly headers: IncomingMessage["headers"]
}

/** A receiver whose behaviour a test switches: hold requests open, answer late, or answer at once. */
const startReceiver = async () => {
  const received: Array<Received> = []
  const held: Array<ServerResponse> = []
  let mode: "hold" | "answer" | { readonly delayMs: number } = "answer"
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({
        eventId: String(req.headers["x-service-event-id"]),
        body: Buffer.concat(chunks),
        headers: req.headers
      })
      if (mode === "hold") held.push(res)
      else if (mode === "answer") res.writeHead(200).end("ok")
      else setTimeout(() => res.writeHead(200).end("ok"), mode.delayMs)
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    setMode: (m: typeof mode) => {
      mode = m
    },
    close: async () => {
      for (const r of held) r.destroy()
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  }
}

const waitFor = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 20_000): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A partner with a full key and one endpoint pointing at `url`. */
const setUp = async (host: RunningHost, url: string) => {
  const admin = { authorization: `Bearer ${host.adminToken}` }
  const p = await call(host, "POST", "/admin/v1/partners", { headers: admin, body: { name: "Crash LLC" } })
  const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin, body: {} })
  const k = await call(host, "POST", "/v1/billing/api-keys", {
    headers: { cookie: `service_token=${s.json.token}` },
    body: {}
  })
  expect(k.status, k.text).toBe(201)
  const key = { "x-api-key": k.json.key as string }
  const e = await call(host, "POST", "/v1/webhooks/endpoints", { headers: key, body: { url } })
  expect(e.status, e.text).toBe(201)
  return { key, endpointId: e.json.id as string, secret: e.json.secret as string }
}

const deliveriesOf = async (host: RunningHost, key: Record<string, string>) => {
  const r = await call(host, "GET", "/v1/webhooks/deliveries", { headers: key })
  expect(r.status, r.text).toBe(200)
  return r.json.deliveries as Array<{
    id: string
    status: string
    eventId: string
    responseCodes: Array<number | null>
    lastError: string | null
  }>
}

const advance = async (host: RunningHost, seconds: number) => {
  const r = await call(host, "POST", "/admin/v1/sandbox/clock/advance", {
    headers: { authorization: `Bearer ${host.adminToken}` },
    body: { seconds }
  })
  expect(r.status, r.text).toBe(200)
}

const running: Array<RunningHost> = []
const receivers: Array<{ close: () => Promise<void> }> = []
afterAll(async () => {
  for (const h of running) await h.stop().catch(() => undefined)
  for (const r of receivers) await r.close()
})

describe("webhook delivery across process deaths", { timeout: 240_000 }, () => {
  it("SIGKILL mid-request: uncertain after restart, not retried, replayed with the same eventId", async () => {
    const receiver = await startReceiver()
    receivers.push(receiver)
    receiver.setMode("hold")
    const first = await spawnHost(ENV)
    running.push(first)
    const { key, endpointId, secret } = await setUp(first, receiver.url)

    const test = await call(first, "POST", `/v1/webhooks/endpoints/${endpointId}/test`, { headers: key })
    expect(test.status, test.text).toBe(200)
    await waitFor("the request to reach the receiver", async () => (receiver.received.length === 1 ? true : undefined))
    await first.kill()
    receiver.setMode("answer")

    const second = await spawnHost(ENV, { dataDir: first.dataDir })
    running.push(second)
    // The lease still runs: the delivery stays in flight until it ends.
    expect((await deliveriesOf(second, key))[0]?.status).toBe("delivering")
    await advance(second, PAST_LEASE_SECONDS)
    const uncertain = await waitFor("the delivery to become uncertain", async () => {
      const [d] = await deliveriesOf(second, key)
      return d?.status === "uncertain" ? d : undefined
    })
    expect(uncertain.eventId).toBe(test.json.eventId)
    expect(uncertain.responseCodes).toEqual([null])
    expect(uncertain.lastError).toContain("outcome unknown")
    // The restarted host's sweep expired the lease, and /metrics counts it.
    // (It counts right after the commit the listing saw, so it is polled for too.)
    await waitFor("the uncertain counter", async () =>
      /^frank_webhook_uncertain_total 1$/m.test((await call(second, "GET", "/metrics")).text) ? true : undefined
    )

    // Never retried automatically, however much time passes.
    await advance(second, 7 * 3600)
    await new Promise((r) => setTimeout(r, 2_500))
    expect(receiver.received).toHaveLength(1)
    expect((await deliveriesOf(second, key))[0]?.status).toBe("uncertain")

    const replay = await call(second, "POST", `/v1/webhooks/deliveries/${uncertain.id}/replay`, { headers: key })
    expect(replay.status, replay.text).toBe(200)
    await waitFor("the replay to be delivered", async () =>
      (await deliveriesOf(second, key))[0]?.status === "delivered" ? true : undefined
    )
    expect(receiver.received).toHaveLength(2)
    const [before, after] = receiver.received as [Received, Received]
    expect(after.eventId).toBe(before.eventId)
    expect(after.body.equals(before.body)).toBe(true)
    // The replay is signed anew (fresh timestamp) over the same bytes, and verifies.
    const verified = await WebhookReceiver.verifyWebhook({
      secret,
      headers: after.headers as Record<string, string>,
      rawBody: after.body,
      now: Number(after.headers["x-service-timestamp"]) * 1000
    })
    expect(verified.ok).toBe(true)
  })

  it("SIGTERM mid-request: the attempt finishes, the host exits 0, the delivery is delivered", async () => {
    const receiver = await startReceiver()
    receivers.push(receiver)
    receiver.setMode({ delayMs: 1_500 })
    const first = await spawnHost(ENV)
    running.push(first)
    const { key, endpointId } = await setUp(first, receiver.url)

    expect((await call(first, "POST", `/v1/webhooks/endpoints/${endpointId}/test`, { headers: key })).status).toBe(200)
    await waitFor("the request to reach the receiver", async () => (receiver.received.length === 1 ? true : undefined))
    expect(await first.stop({ keepData: true })).toBe(0)

    const second = await spawnHost(ENV, { dataDir: first.dataDir })
    running.push(second)
    const [d] = await deliveriesOf(second, key)
    expect(d?.status).toBe("delivered")
    expect(d?.responseCodes).toEqual([200])
    expect(receiver.received).toHaveLength(1)
  })
})
