/**
 * The stored answer commits with the change it answers: the host is SIGKILLed at a fault point
 * between the two (the answer written, the transaction not committed). After a restart on the
 * same data neither is there: the credit did not happen and the key is free, so the retry runs
 * once and then is replayed. On PostgreSQL (DATABASE_URL) a second request with the key while the
 * first hangs at the fault point is answered 409 IDEMPOTENCY_REQUEST_IN_PROGRESS with
 * Retry-After: 1; on PGlite, whose one connection serialises transactions, it waits instead.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { newPartner, waitFor } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const FAULT = { FRANK_FAULT_HANG_AFTER_IDEMPOTENT_SAVE: "1" }
// One admin token across the restart: admin keys are scoped to the token.
const ADMIN_TOKEN = "idempotency-crash-admin-token"
const database = {
  FRANK_ADMIN_TOKEN: ADMIN_TOKEN,
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {})
}
const hosts: RunningHost[] = []
afterAll(async () => {
  for (const h of hosts) await h.stop()
})

const balance = async (host: RunningHost, headers: Record<string, string>) =>
  (await call(host, "GET", "/v1/billing/balance", { headers })).json.total as number

describe("idempotency: SIGKILL between the change and its stored answer", { timeout: 240_000 }, () => {
  it("leaves neither the credit nor the answer; the retry runs once, then replays", async () => {
    const first = await spawnHost({ ...FAULT, ...database })
    hosts.push(first)
    const partner = await newPartner({ baseUrl: first.baseUrl, adminToken: ADMIN_TOKEN }, "Crash LLC")
    const path = `/admin/v1/partners/${partner.id}/credits`
    const key = `crash-${Date.now()}`
    const headers = {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      "idempotency-key": key,
      "content-type": "application/json"
    }
    const body = JSON.stringify({ amountFranks: 40, kind: "bonus" })
    const before = await balance(first, partner.key)
    // Never answered: the host hangs at the fault point, inside the transaction.
    const hanging = fetch(first.baseUrl + path, { method: "POST", headers, body }).catch(() => undefined)
    await waitFor("the fault point", () =>
      first.logs().includes("fault point: idempotent answer saved, not committed") ? true : undefined
    )
    if (process.env.DATABASE_URL) {
      const concurrent = await call(first, "POST", path, { headers, rawBody: body })
      expect(concurrent.status).toBe(409)
      expect(concurrent.json.code).toBe("IDEMPOTENCY_REQUEST_IN_PROGRESS")
      expect(concurrent.headers.get("retry-after")).toBe("1")
    }
    await first.kill()
    await hanging

    const second = await spawnHost(database, { dataDir: first.dataDir })
    hosts.push(second)
    expect(await balance(second, partner.key)).toBe(before)
    const retry = await call(second, "POST", path, { headers: headers, rawBody: body })
    expect(retry.status, retry.text).toBe(201)
    expect(retry.headers.get("idempotent-replayed")).toBeNull()
    const again = await call(second, "POST", path, { headers: headers, rawBody: body })
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.text).toBe(retry.text)
    expect(await balance(second, partner.key)).toBe(before + 40)
  })
})
