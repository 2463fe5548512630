/**
 * Two real host processes on one PostgreSQL database (DATABASE_URL; a schema of this file's own),
 * as an operator scales the reference host out: both serve the API and both run delivery workers,
 * which claim with SKIP LOCKED, wake each other with NOTIFY after commit, and never send an event
 * twice. The embedded-database host is covered by the other webhook e2e files.
 */
import { randomUUID } from "node:crypto"
import { withSearchPath } from "@frank/adapters"
import { verifyWebhook } from "@frank/core"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import pg from "pg"
import { freshIp, newPartner, type Receiver, startReceiver, waitFor } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const url = process.env.DATABASE_URL

const adminStatement = async (text: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

describe("webhooks on two hosts sharing PostgreSQL", () => {
  const schema = `frank_e2e_${randomUUID().replaceAll("-", "")}`
  const hosts: Array<RunningHost> = []
  let receiver: Receiver

  beforeAll(async () => {
    if (url === undefined || url.length === 0) throw new Error("DATABASE_URL is required (npm test runs with a PostgreSQL database; see README)")
    await adminStatement(`CREATE SCHEMA ${schema}`)
    // Same database, same pepper (API keys made on one host must verify on the other).
    const env = {
      DATABASE_URL: withSearchPath(url, schema),
      FRANK_KEY_PEPPER: `pepper-${schema}`,
      FRANK_ALLOW_PRIVATE_NETWORK: "true",
      FRANK_TRUST_PROXY: "true"
    }
    // One after the other: both would otherwise run the migrations at once.
    hosts.push(await spawnHost(env))
    hosts.push(await spawnHost(env))
    receiver = await startReceiver()
  }, 240_000)

  afterAll(async () => {
    await receiver?.close()
    for (const h of hosts) expect(await h.stop()).toBe(0)
    // No listener restarts, no failed NOTIFYs, nothing else gone wrong on either side.
    const problems = (h: RunningHost) =>
      h
        .logs()
        .split("\n")
        .filter((l) => (l.includes('"level":"ERROR"') || l.includes('"level":"WARN')) && !l.includes("FRANK_ALLOW_PRIVATE_NETWORK is on"))
    for (const h of hosts) expect(problems(h)).toEqual([])
    if (url !== undefined && url.length > 0) await adminStatement(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  }, 60_000)

  it("events sent through either host reach the receiver exactly once each, signed", async () => {
    const [a, b] = hosts as [RunningHost, RunningHost]
    const partner = await newPartner(a, "Scaled Out")
    const endpoint = await call(a, "POST", "/v1/webhooks/endpoints", { headers: partner.key, body: { url: receiver.url } })
    expect(endpoint.status, endpoint.text).toBe(201)
    const key = { ...partner.key, "x-forwarded-for": freshIp() }

    const EVENTS = 30
    const eventIds: Array<string> = []
    for (let i = 0; i < EVENTS; i++) {
      const host = i % 2 === 0 ? a : b
      // A client address per request: the spec's per-IP limit on this route is a few a minute.
      const t = await call(host, "POST", `/v1/webhooks/endpoints/${endpoint.json.id}/test`, { headers: { ...key, "x-forwarded-for": freshIp() } })
      expect(t.status, t.text).toBe(200)
      eventIds.push(t.json.eventId)
    }
    await receiver.nth(EVENTS)
    // Both hosts' listings agree: every delivery delivered at its first attempt.
    for (const host of [a, b]) {
      const listed = await waitFor("every delivery delivered", async () => {
        const r = await call(host, "GET", "/v1/webhooks/deliveries?limit=100", { headers: key })
        expect(r.status, r.text).toBe(200)
        const ds = r.json.deliveries as Array<{ eventId: string; status: string; attempts: number }>
        return ds.length === EVENTS && ds.every((d) => d.status === "delivered") ? ds : undefined
      })
      expect(listed.every((d) => d.attempts === 1)).toBe(true)
      expect(new Set(listed.map((d) => d.eventId))).toEqual(new Set(eventIds))
    }
    // Nothing arrives twice, even after both workers had time to look again.
    await new Promise((r) => setTimeout(r, 1_500))
    const received = receiver.received.map((r) => r.headers["x-service-event-id"])
    expect(received).toHaveLength(EVENTS)
    expect(new Set(received)).toEqual(new Set(eventIds))
    for (const r of receiver.received) {
      const verified = await verifyWebhook({
        secret: endpoint.json.secret,
        headers: r.headers as Record<string, string>,
        rawBody: r.body,
        now: Number(r.headers["x-service-timestamp"]) * 1000
      })
      expect(verified.ok).toBe(true)
    }
  })
})
