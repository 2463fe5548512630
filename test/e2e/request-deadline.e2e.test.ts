/**
 * End-to-end: `FRANK_REQUEST_TIMEOUT_MS` covers a request whatever its state (issue 31). A body
 * that stops arriving answers 408; a handler that stalls (here: its INSERT waits on a table
 * another session holds locked, as a stuck database would) answers 503 with the envelope at the
 * deadline instead of holding the connection open. Runs on PostgreSQL: DATABASE_URL, or the
 * machines' local server (docs/contract.md §7), since the stall is a lock held from outside.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import pg from "pg"
import { rawExchange } from "./rawSocket.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const TIMEOUT_MS = 2000
let host: RunningHost

beforeAll(async () => {
  host = await spawnHost({
    DATABASE_URL: url,
    FRANK_HEADERS_TIMEOUT_MS: "1000",
    FRANK_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS)
  })
}, 120_000)

afterAll(async () => {
  expect(await host?.stop()).toBe(0)
}, 60_000)

const admin = () => ({ authorization: `Bearer ${host.adminToken}` })

describe("the request timeout covers every stage of a request", () => {
  it("a handler stalled on the database is answered 503 at the deadline, and the host serves on", async () => {
    const locker = new pg.Client({ connectionString: url })
    await locker.connect()
    try {
      await locker.query("BEGIN")
      await locker.query("LOCK TABLE frank.partners IN ACCESS EXCLUSIVE MODE")
      const started = performance.now()
      const r = await fetch(`${host.baseUrl}/admin/v1/partners`, {
        method: "POST",
        headers: { ...admin(), "content-type": "application/json" },
        body: JSON.stringify({ name: "Stalled LLC" }),
        // Without the deadline the request waits for the lock, held far longer than this.
        signal: AbortSignal.timeout(3 * TIMEOUT_MS)
      })
      const elapsedMs = performance.now() - started
      expect(r.status).toBe(503)
      expect(r.headers.get("connection")).toBe("close")
      expect(await r.json()).toMatchObject({ statusCode: 503, code: "REQUEST_TIMEOUT" })
      expect(elapsedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 100)
      expect((await call(host, "GET", "/healthz")).status).toBe(200)
    } finally {
      await locker.query("ROLLBACK")
      await locker.end()
    }
    const after = await call(host, "POST", "/admin/v1/partners", { headers: admin(), body: { name: "After LLC" } })
    expect(after.status).toBe(201)
  }, 30_000)

  it("a body that stops arriving is answered 408 and the connection dropped", async () => {
    const answer = await rawExchange(host.baseUrl, (socket) =>
      socket.write(
        `POST /admin/v1/partners HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${host.adminToken}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":'
      )
    )
    expect(answer).toMatch(/^HTTP\/1\.1 408/)
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({
      statusCode: 408,
      code: "REQUEST_TIMEOUT"
    })
  }, 30_000)
})
