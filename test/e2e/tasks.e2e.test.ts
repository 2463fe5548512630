/**
 * Generation tasks end to end: the real host process (embedded PGlite, sandbox provider with
 * auto-completion off, FRANK_SANDBOX_TASK_SECONDS=0) and a real webhook receiver on loopback
 * (FRANK_ALLOW_PRIVATE_NETWORK=true), spoken to over HTTP as a partner and an operator would.
 *
 * launch → reserved → admin succeed → settled (balance, transactions, result file, signed
 * task.succeeded + billing.settled); launch → admin fail → refunded (task.failed,
 * billing.refunded, task.refunded); a second report settles nothing; an Idempotency-Key retry
 * (also ten at once) is one task and one reservation; the generation-area error envelope; the
 * per-key billing limit is not spent by task requests; a restart keeps running tasks finishable.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { WebhookReceiver } from "@frank/core"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const ENV = { FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_SANDBOX_TASK_SECONDS: "0" }

interface Received {
  readonly eventType: string
  readonly eventId: string
  readonly data: Record<string, unknown>
  readonly body: Buffer
  readonly headers: IncomingMessage["headers"]
}

let host: RunningHost
let receiver: Server
let hookUrl: string
const received: Array<Received> = []
const admin = () => ({ authorization: `Bearer ${host.adminToken}` })

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const envelope = JSON.parse(body.toString("utf8"))
      received.push({
        eventType: envelope.eventType,
        eventId: envelope.eventId,
        data: envelope.data,
        body,
        headers: req.headers
      })
      res.writeHead(200).end("ok")
    })
  })
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done))
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
  host = await spawnHost(ENV)
}, 120_000)

afterAll(async () => {
  expect(await host?.stop()).toBe(0)
  receiver?.closeAllConnections()
  await new Promise<void>((done) => receiver?.close(() => done()))
}, 60_000)

const waitFor = async <A>(
  what: string,
  probe: () => Promise<A | undefined> | A | undefined,
  timeoutMs = 20_000
): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A partner with `franks` credited, a full API key and a webhook endpoint at the receiver. */
const newPartner = async (franks: number, withHook = true) => {
  const p = await call(host, "POST", "/admin/v1/partners", { headers: admin(), body: { name: "Studio LLC" } })
  const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin(), body: {} })
  if (franks > 0)
    expect(
      (
        await call(host, "POST", `/admin/v1/partners/${p.json.id}/credits`, {
          headers: admin(),
          body: { amountFranks: franks, kind: "bonus" }
        })
      ).status
    ).toBe(201)
  const cookie = { cookie: `service_token=${s.json.token}` }
  const k = await call(host, "POST", "/v1/billing/api-keys", { headers: cookie, body: {} })
  expect(k.status, k.text).toBe(201)
  const key = { "x-api-key": k.json.key as string }
  let secret = ""
  if (withHook) {
    const e = await call(host, "POST", "/v1/webhooks/endpoints", { headers: key, body: { url: hookUrl } })
    expect(e.status, e.text).toBe(201)
    secret = e.json.secret
  }
  return { id: p.json.id as string, key, cookie, secret }
}

const image = { modelId: "gpt-image-1", prompt: "a lighthouse at dusk", quality: "medium" }

const launch = async (key: Record<string, string>, body: object = image, headers: Record<string, string> = {}) =>
  call(host, "POST", "/v1/tasks", { headers: { ...key, ...headers }, body })

const balance = async (key: Record<string, string>) =>
  (await call(host, "GET", "/v1/billing/balance", { headers: key })).json

const taskRows = async (key: Record<string, string>, taskId: string) => {
  const r = await call(host, "GET", "/v1/billing/transactions?limit=100", { headers: key })
  expect(r.status, r.text).toBe(200)
  return (r.json.items as Array<{ type: string; kind: string; amount: number; taskId: string | null }>)
    .filter((t) => t.taskId === taskId)
    .map((t) => `${t.type}:${t.kind}:${t.amount}`)
    .sort()
}

const control = async (taskId: string, action: "succeed" | "fail", body?: object) =>
  call(host, "POST", `/admin/v1/sandbox/tasks/${taskId}/${action}`, {
    headers: admin(),
    ...(body === undefined ? {} : { body })
  })

const eventsOf = (taskId: string) => received.filter((r) => r.data.taskId === taskId)

describe("generation tasks end to end", { timeout: 120_000 }, () => {
  it("task requests do not spend the per-key billing limit", async () => {
    const partner = await newPartner(5000, false)
    // One more than the per-key limit (60/min): every one is served.
    for (let i = 0; i < 61; i++)
      expect((await call(host, "GET", "/v1/tasks?limit=1", { headers: partner.key })).status).toBe(200)
    const b = await call(host, "GET", "/v1/billing/balance", { headers: partner.key })
    expect(b.status, b.text).toBe(200)
    expect(b.headers.get("ratelimit-limit")).toBe("60")
    expect(b.headers.get("ratelimit-remaining")).toBe("59")
  })

  it("launch → reserved → succeed → settled, with the result file and signed task.succeeded and billing.settled", async () => {
    const partner = await newPartner(5000)
    const estimate = await call(host, "POST", "/v1/billing/pricing/estimate", { headers: partner.key, body: image })
    const quoted = estimate.json.totalFranks as number

    const launched = await launch(partner.key)
    expect(launched.status, launched.text).toBe(201)
    expect(launched.json).toEqual({
      success: true,
      data: { task_id: expect.any(String), status: "queued", reservedFranks: quoted }
    })
    const taskId = launched.json.data.task_id as string
    expect(await balance(partner.key)).toMatchObject({ total: 5000, reserved: quoted, used: 0 })

    // The sandbox picks the task up at once and then waits for the operator.
    const running = await waitFor("the task to run", async () => {
      const t = await call(host, "GET", `/v1/tasks/${taskId}`, { headers: partner.key })
      return t.json.data.status === "running" ? t.json : undefined
    })
    expect(running).toMatchObject({
      success: true,
      data: { task_id: taskId, modelId: "gpt-image-1", request: image, reservedFranks: quoted, costFranks: null }
    })

    const cost = Math.round((quoted - 0.5) * 100) / 100
    const done = await control(taskId, "succeed", { costFranks: cost })
    expect(done.status, done.text).toBe(200)
    expect(done.json).toMatchObject({
      applied: true,
      task: { task_id: taskId, status: "succeeded", costFranks: cost, result: { mimeType: "image/png" } }
    })
    expect(await balance(partner.key)).toMatchObject({ reserved: 0, used: cost, available: 5000 - cost })
    expect(await taskRows(partner.key, taskId)).toEqual([
      `confirm:task_charge:${cost}`,
      "refund:task_release:0.5",
      `reservation:task_hold:${quoted}`
    ])

    const view = await call(host, "GET", `/v1/tasks/${taskId}`, { headers: partner.key })
    const resultUrl = view.json.data.result.url as string
    expect(resultUrl).toBe(`${host.baseUrl}/v1/tasks/${taskId}/result`)
    const file = await fetch(resultUrl, { headers: partner.key })
    expect(file.status).toBe(200)
    expect(file.headers.get("content-type")).toBe("image/png")
    const bytes = new Uint8Array(await file.arrayBuffer())
    expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
    expect(bytes.length).toBe(view.json.data.result.sizeBytes)

    const events = await waitFor("task.succeeded and billing.settled", () => {
      const got = eventsOf(taskId)
      return got.length >= 2 ? got : undefined
    })
    expect(events.map((e) => e.eventType).sort()).toEqual(["billing.settled", "task.succeeded"])
    expect(events.find((e) => e.eventType === "task.succeeded")?.data).toMatchObject({
      taskId,
      status: "succeeded",
      costFranks: cost,
      resultUrl
    })
    expect(events.find((e) => e.eventType === "billing.settled")?.data).toMatchObject({ taskId, amountFranks: cost })
    for (const e of events)
      expect(
        (
          await WebhookReceiver.verifyWebhook({
            secret: partner.secret,
            headers: e.headers as Record<string, string>,
            rawBody: e.body,
            now: Date.now()
          })
        ).ok
      ).toBe(true)
  })

  it("launch → fail → refunded, with task.failed, billing.refunded and task.refunded", async () => {
    const partner = await newPartner(5000)
    const launched = await launch(partner.key, { modelId: "eleven-v3-tts", prompt: "Hello, world" })
    expect(launched.status, launched.text).toBe(201)
    const { task_id: taskId, reservedFranks } = launched.json.data
    expect((await balance(partner.key)).reserved).toBe(reservedFranks)

    const failed = await control(taskId, "fail", { code: "VOICE_UNAVAILABLE", message: "the voice is not available" })
    expect(failed.status, failed.text).toBe(200)
    expect(failed.json).toMatchObject({
      applied: true,
      task: { status: "failed", failure: { code: "VOICE_UNAVAILABLE" }, costFranks: null }
    })
    expect(await balance(partner.key)).toMatchObject({ reserved: 0, used: 0, available: 5000 })
    expect(await taskRows(partner.key, taskId)).toEqual([
      `refund:task_refund:${reservedFranks}`,
      `reservation:task_hold:${reservedFranks}`
    ])

    const events = await waitFor("the failure events", () => {
      const got = eventsOf(taskId)
      return got.length >= 3 ? got : undefined
    })
    expect(events.map((e) => e.eventType).sort()).toEqual(["billing.refunded", "task.failed", "task.refunded"])
    expect(events.find((e) => e.eventType === "task.failed")?.data).toMatchObject({
      taskId,
      status: "failed",
      failureCode: "VOICE_UNAVAILABLE"
    })
    expect(events.find((e) => e.eventType === "billing.refunded")?.data).toMatchObject({
      taskId,
      amountFranks: reservedFranks
    })
    const notYet = await call(host, "GET", `/v1/tasks/${taskId}/result`, { headers: partner.key })
    expect(notYet.status).toBe(404)
    expect(notYet.json).toMatchObject({ success: false, code: "TASK_RESULT_NOT_AVAILABLE" })
  })

  it("a second report settles nothing: balance, rows and events stay as after the first", async () => {
    const partner = await newPartner(5000)
    const taskId = (await launch(partner.key)).json.data.task_id as string
    expect((await control(taskId, "succeed")).json.applied).toBe(true)
    await waitFor("the first events", () => (eventsOf(taskId).length >= 2 ? true : undefined))
    const before = { balance: await balance(partner.key), rows: await taskRows(partner.key, taskId) }

    for (const [action, body] of [
      ["succeed", { costFranks: 0.01 }],
      ["fail", undefined],
      ["succeed", undefined]
    ] as const) {
      const again = await control(taskId, action, body)
      expect(again.status, again.text).toBe(200)
      expect(again.json).toMatchObject({ applied: false, task: { status: "succeeded" } })
    }
    expect(await balance(partner.key)).toEqual(before.balance)
    expect(await taskRows(partner.key, taskId)).toEqual(before.rows)
    // Deliveries are written with the settlement: a repeat would show up as more of them.
    const deliveries = await call(host, "GET", "/v1/webhooks/deliveries?limit=100", { headers: partner.key })
    expect((deliveries.json.deliveries as Array<{ eventType: string }>).map((d) => d.eventType).sort()).toEqual([
      "billing.settled",
      "task.succeeded"
    ])
    await new Promise((r) => setTimeout(r, 1_000))
    expect(eventsOf(taskId)).toHaveLength(2)
  })

  it("Idempotency-Key: a retry answers the first task with 200 and reserves once, also for ten retries at once", async () => {
    const partner = await newPartner(5000, false)
    const first = await launch(partner.key, image, { "Idempotency-Key": "render-7" })
    expect(first.status, first.text).toBe(201)
    const retry = await launch(partner.key, image, { "Idempotency-Key": "render-7" })
    expect(retry.status, retry.text).toBe(200)
    expect(retry.json.data.task_id).toBe(first.json.data.task_id)

    const burst = await Promise.all(
      Array.from({ length: 10 }, () => launch(partner.key, image, { "Idempotency-Key": "render-8" }))
    )
    expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
    expect(new Set(burst.map((r) => r.json.data.task_id)).size).toBe(1)

    const reserved = first.json.data.reservedFranks as number
    expect((await balance(partner.key)).reserved).toBe(reserved * 2)
    const rows = await call(host, "GET", "/v1/billing/transactions?type=reservation", { headers: partner.key })
    expect(rows.json.total).toBe(2)
    const list = await call(host, "GET", "/v1/tasks", { headers: partner.key })
    expect(list.json).toMatchObject({ success: true, data: { total: 2, page: 1, limit: 20 } })
    expect(list.json.data.items.map((t: { idempotencyKey: string }) => t.idempotencyKey)).toEqual([
      "render-8",
      "render-7"
    ])

    const conflict = await launch(
      partner.key,
      { ...image, prompt: "another picture" },
      { "Idempotency-Key": "render-7" }
    )
    expect(conflict.status).toBe(409)
    expect(conflict.json).toMatchObject({ success: false, code: "IDEMPOTENCY_KEY_REUSED", data: null })
    const tooLong = await launch(partner.key, image, { "Idempotency-Key": "k".repeat(129) })
    expect(tooLong.status).toBe(400)
    expect(tooLong.json).toMatchObject({ success: false, code: "VALIDATION_FAILED" })
  })

  it("failures answer in the generation envelope: validation 400, 402, 401, 403 and 404", async () => {
    const broke = await newPartner(0, false)
    const invalid = await launch(broke.key, {
      modelId: "gpt-image-1",
      prompt: "x".repeat(3001),
      imageOutputCount: 12,
      quality: "ultra"
    })
    expect(invalid.status).toBe(400)
    expect(invalid.json).toEqual({ success: false, code: "VALIDATION_FAILED", message: expect.any(Array), data: null })
    expect(invalid.json.message).toHaveLength(3)

    const unknownModel = await launch(broke.key, { modelId: "no-such-model" })
    expect(unknownModel.status).toBe(400)
    expect(unknownModel.json).toMatchObject({ success: false, code: "PRICING_MODEL_UNKNOWN" })

    const foreignFile = await launch(broke.key, {
      ...image,
      inputs: [{ storedFileId: "0b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b", role: "referenceImage" }]
    })
    expect(foreignFile.status).toBe(400)
    expect(foreignFile.json).toMatchObject({ success: false, code: "TASK_INPUT_INVALID" })

    const poor = await launch(broke.key)
    expect(poor.status).toBe(402)
    expect(poor.json).toEqual({
      success: false,
      code: "INSUFFICIENT_FUNDS",
      message: expect.stringContaining("insufficient funds"),
      data: null
    })
    expect((await call(host, "GET", "/v1/tasks", { headers: broke.key })).json.data.total).toBe(0)

    const anonymous = await call(host, "POST", "/v1/tasks", { body: image })
    expect(anonymous.status).toBe(401)
    expect(anonymous.json).toEqual({ success: false, code: "API_KEY_INVALID", message: expect.any(String), data: null })

    const readOnly = await call(host, "POST", "/v1/billing/api-keys", {
      headers: broke.cookie,
      body: { scopes: ["tasks:read"] }
    })
    expect(readOnly.status, readOnly.text).toBe(201)
    const denied = await launch({ "x-api-key": readOnly.json.key })
    expect(denied.status).toBe(403)
    expect(denied.json).toMatchObject({ success: false, code: "API_KEY_SCOPE_REQUIRED" })
    expect((await call(host, "GET", "/v1/tasks", { headers: { "x-api-key": readOnly.json.key } })).status).toBe(200)

    const missing = await call(host, "GET", "/v1/tasks/0b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b", { headers: broke.key })
    expect(missing.status).toBe(404)
    expect(missing.json).toMatchObject({ success: false, code: "TASK_NOT_FOUND", data: null })
    const noControl = await control("0b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b", "succeed")
    expect(noControl.status).toBe(404)
  })

  it("a task running when the host stops can still be finished after the restart", async () => {
    const partner = await newPartner(5000, false)
    const taskId = (await launch(partner.key)).json.data.task_id as string
    await waitFor("the task to run", async () =>
      (await call(host, "GET", `/v1/tasks/${taskId}`, { headers: partner.key })).json.data.status === "running"
        ? true
        : undefined
    )
    expect(await host.stop({ keepData: true })).toBe(0)
    host = await spawnHost(ENV, { dataDir: host.dataDir })
    expect((await call(host, "GET", `/v1/tasks/${taskId}`, { headers: partner.key })).json.data.status).toBe("running")
    expect((await control(taskId, "succeed")).json).toMatchObject({ applied: true, task: { status: "succeeded" } })
    expect(await balance(partner.key)).toMatchObject({ reserved: 0 })
  })
})
