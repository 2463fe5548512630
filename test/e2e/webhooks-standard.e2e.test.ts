/**
 * Standard Webhooks signing end to end: the real host process (embedded PGlite) and receivers on
 * loopback that verify every delivery with the `standardwebhooks` package before answering
 * (test/e2e/standardReceiver.ts), so "delivered" in the host's log means the library accepted it.
 * Covers `standard-webhooks` and `both` endpoints, a switch by PATCH, the endpoint read route, and
 * a secret rotation: both secrets verify inside the 6 h window (reached with the sandbox clock),
 * only the new one after it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { WebhookReceiver } from "@frank/core"
import { advanceClock, newPartner, type Partner, waitFor } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"
import { type StandardReceiver, startStandardReceiver } from "./standardReceiver.js"
import { libraryVerdict } from "../support/standardLibraries.js"

const ENV = { FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_SANDBOX_CLOCK: "true", FRANK_TRUST_PROXY: "true" }
const NEW_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

interface Delivery {
  readonly eventId: string
  readonly status: string
  readonly responseCodes: Array<number | null>
}

let host: RunningHost
const receivers: Array<StandardReceiver> = []
const cleanups: Array<() => Promise<unknown>> = []

beforeAll(async () => {
  host = await spawnHost(ENV)
}, 120_000)

afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

afterAll(async () => {
  for (const r of receivers) await r.close()
  const code = await host?.stop()
  expect(code).toBe(0)
}, 60_000)

const receiverHolding = async (secrets: ReadonlyArray<string>) => {
  const r = await startStandardReceiver(host, secrets)
  receivers.push(r)
  return r
}

/** An endpoint pointing at a receiver that holds its secret (the receiver starts once the secret is known). */
const endpointWithReceiver = async (p: Partner, signatureScheme?: string) => {
  const receiver = await receiverHolding([])
  const body = signatureScheme === undefined ? { url: receiver.url } : { url: receiver.url, signatureScheme }
  const e = await call(host, "POST", "/v1/webhooks/endpoints", { headers: p.key, body })
  expect(e.status, e.text).toBe(201)
  cleanups.push(() => call(host, "DELETE", `/v1/webhooks/endpoints/${e.json.id}`, { headers: p.key }))
  expect(e.json.secret).toMatch(NEW_SECRET)
  receiver.hold([e.json.secret])
  return { id: e.json.id as string, secret: e.json.secret as string, receiver }
}

const sendTest = async (p: Partner, endpointId: string) => {
  const t = await call(host, "POST", `/v1/webhooks/endpoints/${endpointId}/test`, { headers: p.key })
  expect(t.status, t.text).toBe(200)
  return t.json.eventId as string
}

/** Polls the delivery log until the delivery of `eventId` has `codes` as its answers. */
const answered = (p: Partner, eventId: string, codes: Array<number>) =>
  waitFor(`delivery of ${eventId} answered ${codes}`, async () => {
    const r = await call(host, "GET", "/v1/webhooks/deliveries?limit=100", { headers: p.monitor })
    const d = (r.json.deliveries as Array<Delivery>).find((x) => x.eventId === eventId)
    return d !== undefined && d.responseCodes.join() === codes.join() ? d : undefined
  })

/** The request with webhook-id `eventId`, once it arrived. */
const requestOf = (receiver: StandardReceiver, eventId: string) =>
  waitFor(`request of ${eventId}`, () => receiver.received.find((r) => r.headers["webhook-id"] === eventId))

describe("Standard Webhooks deliveries end to end", { timeout: 180_000 }, () => {
  it("a standard-webhooks endpoint: the library verifies each delivery, which carries no Frank headers", async () => {
    const p = await newPartner(host, "Standard LLC")
    const { id, secret, receiver } = await endpointWithReceiver(p, "standard-webhooks")
    const one = await call(host, "GET", `/v1/webhooks/endpoints/${id}`, { headers: p.monitor })
    expect(one.status, one.text).toBe(200)
    expect(one.json).toMatchObject({ id, url: receiver.url, signatureScheme: "standard-webhooks" })
    expect(one.text).not.toContain(secret)

    const eventId = await sendTest(p, id)
    await answered(p, eventId, [204])
    const r = await requestOf(receiver, eventId)
    expect(r.verdicts).toEqual(["ok"])
    expect(Object.keys(r.headers).filter((h) => h.startsWith("x-service"))).toEqual([])
    expect(JSON.parse(r.body.toString("utf8"))).toMatchObject({ eventId, eventType: "webhook.test" })
    // Svix's library agrees; a receiver holding another secret refuses.
    expect(libraryVerdict("svix", secret, r, r.at)).toBe("ok")
    const other = `whsec_${Buffer.alloc(32, 9).toString("base64")}`
    expect(libraryVerdict("standardwebhooks", other, r, r.at)).toBe("No matching signature found")
  })

  it("a both endpoint, and a frank one switched by PATCH: each header set verifies on its own", async () => {
    const p = await newPartner(host, "Both LLC")
    const created = await endpointWithReceiver(p, "both")
    const switched = await endpointWithReceiver(p)
    const patched = await call(host, "PATCH", `/v1/webhooks/endpoints/${switched.id}`, {
      headers: p.key,
      body: { signatureScheme: "both" }
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.json.signatureScheme).toBe("both")
    const listed = await call(host, "GET", "/v1/webhooks/endpoints", { headers: p.monitor })
    expect(listed.json.items.map((e: { signatureScheme: string }) => e.signatureScheme)).toEqual(["both", "both"])

    for (const { id, secret, receiver } of [created, switched]) {
      const eventId = await sendTest(p, id)
      await answered(p, eventId, [204])
      const r = await requestOf(receiver, eventId)
      expect(r.verdicts).toEqual(["ok"])
      expect(r.headers["x-service-event-id"]).toBe(eventId)
      // Frank's half, checked by Frank's receiver kit at the host's time.
      expect(
        await WebhookReceiver.verifyWebhook({ secret, headers: r.headers, rawBody: r.body, now: r.at, scheme: "frank" })
      ).toMatchObject({ ok: true, scheme: "frank", eventId })
    }
  })

  it("rotation: both secrets verify for 6 h, then only the new one; a receiver left on the old one is refused", async () => {
    const p = await newPartner(host, "Rotating Standard LLC")
    const { id, secret: oldSecret, receiver } = await endpointWithReceiver(p, "standard-webhooks")
    const rotated = await call(host, "POST", `/v1/webhooks/endpoints/${id}/rotate-secret`, { headers: p.key })
    expect(rotated.status, rotated.text).toBe(200)
    const newSecret = rotated.json.secret as string
    expect(newSecret).toMatch(NEW_SECRET)

    // Inside the window: the receiver still on the old secret, and one already on the new.
    receiver.hold([oldSecret, newSecret])
    const during = await sendTest(p, id)
    await answered(p, during, [204])
    const r = await requestOf(receiver, during)
    expect(String(r.headers["webhook-signature"]).split(" ")).toHaveLength(2)
    expect(r.verdicts).toEqual(["ok", "ok"])

    // Past the window the old secret no longer signs.
    await advanceClock(host, 6 * 3600 + 60)
    await receiver.followHost()
    receiver.hold([oldSecret])
    const after = await sendTest(p, id)
    await answered(p, after, [401])
    const refused = await requestOf(receiver, after)
    expect(String(refused.headers["webhook-signature"]).split(" ")).toHaveLength(1)
    expect(refused.verdicts).toEqual(["No matching signature found"])

    // The receiver installs the new secret; the retry a minute later is accepted.
    receiver.hold([newSecret])
    await advanceClock(host, 60)
    await receiver.followHost()
    await answered(p, after, [401, 204])
    const retried = receiver.received.filter((x) => x.headers["webhook-id"] === after)
    expect(retried.map((x) => [x.status, x.verdicts])).toEqual([
      [401, ["No matching signature found"]],
      [204, ["ok"]]
    ])
    // Signed anew for the retry: its own timestamp, the same body.
    expect(retried[1]?.headers["webhook-timestamp"]).not.toBe(retried[0]?.headers["webhook-timestamp"])
    expect(retried[1]?.body.equals(retried[0]?.body ?? Buffer.alloc(0))).toBe(true)
  })

  it("GET of an unknown, foreign or malformed endpoint id is 404; an unknown scheme is 400", async () => {
    const a = await newPartner(host, "Reader A")
    const b = await newPartner(host, "Reader B")
    const { id } = await endpointWithReceiver(a)
    for (const [p, path] of [
      [a, `/v1/webhooks/endpoints/${crypto.randomUUID()}`],
      [b, `/v1/webhooks/endpoints/${id}`],
      [a, "/v1/webhooks/endpoints/not-a-uuid"]
    ] as const) {
      const r = await call(host, "GET", path, { headers: p.monitor })
      expect(r.status, r.text).toBe(404)
      expect(r.json).toMatchObject({ statusCode: 404, code: "WEBHOOK_ENDPOINT_NOT_FOUND" })
    }
    const bad = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: a.key,
      body: { url: "http://127.0.0.1:9/never", signatureScheme: "svix" }
    })
    expect(bad.status, bad.text).toBe(400)
    expect(bad.json.code).toBe("VALIDATION_FAILED")
  })
})
