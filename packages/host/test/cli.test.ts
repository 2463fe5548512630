/**
 * The operator CLI: its command table, a real round trip over HTTP, and `frank migrate` on an
 * embedded database.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { commands, UsageError } from "../src/cli/commands.js"
import { run } from "../src/cli/main.js"

const BIN = resolve(import.meta.dirname, "../bin/frank.mjs")

describe("frank CLI commands", () => {
  it("maps every command to its admin API request", () => {
    expect(commands["partners create"]!.request({ name: "Acme" }, [])).toEqual({ method: "POST", path: "/admin/v1/partners", body: { name: "Acme" } })
    expect(commands["sessions create"]!.request({ partner: "p/1", ttl: "600" }, [])).toEqual({
      method: "POST",
      path: "/admin/v1/partners/p%2F1/sessions",
      body: { ttlSeconds: 600 }
    })
    expect(commands["credits add"]!.request({ partner: "p", amount: "12.5", kind: "bonus", description: "hi" }, [])).toEqual({
      method: "POST",
      path: "/admin/v1/partners/p/credits",
      body: { amountFranks: 12.5, kind: "bonus", description: "hi" }
    })
    expect(commands["tariff set"]!.request({ partner: "p", plan: "pro" }, [])).toEqual({ method: "PUT", path: "/admin/v1/partners/p/tariff", body: { assignedPlan: "pro" } })
    expect(commands["legacy-keys create"]!.request({ partner: "p" }, [])).toEqual({ method: "POST", path: "/admin/v1/partners/p/legacy-keys" })
    expect(commands["sandbox payments"]!.request({}, ["pay1", "confirm"])).toEqual({ method: "POST", path: "/admin/v1/sandbox/payments/pay1/confirm" })
    expect(commands["sandbox tasks"]!.request({}, ["t1", "fail"])).toEqual({ method: "POST", path: "/admin/v1/sandbox/tasks/t1/fail" })
    expect(() => commands["sandbox invoices"]!.request({}, ["i1", "explode"])).toThrow(UsageError)
    expect(() => commands["credits add"]!.request({ partner: "p", amount: "ten", kind: "bonus" }, [])).toThrow(/must be a number/)
    expect(() => commands["partners create"]!.request({}, [])).toThrow(/--name is required/)
  })

  it("sends the request with the admin token and exits 1 on a refusal", async () => {
    const seen: Array<{ method: string; url: string; auth: string | undefined; body: string }> = []
    const server = createServer((req: IncomingMessage, res) => {
      let body = ""
      req.on("data", (d) => {
        body += d
      })
      req.on("end", () => {
        seen.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization, body })
        const refused = body.includes("Nope")
        res.writeHead(refused ? 400 : 201, { "content-type": "application/json" })
        res.end(JSON.stringify(refused ? { statusCode: 400, code: "VALIDATION_FAILED", message: ["name: bad"] } : { id: "p1" }))
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      expect(await run(["partners", "create", "--name", "Acme", "--url", url, "--token", "tok"])).toBe(0)
      expect(seen[0]).toEqual({ method: "POST", url: "/admin/v1/partners", auth: "Bearer tok", body: JSON.stringify({ name: "Acme" }) })
      expect(await run(["partners", "create", "--name", "Nope", "--url", url, "--token", "tok"])).toBe(1)
    } finally {
      server.close()
    }
    expect(await run(["partners", "create", "--name", "x", "--url", "http://127.0.0.1:1", "--token", "t"])).toBe(2)
    expect(await run(["no", "such"])).toBe(2)
  })

  it("frank migrate applies the migrations to the embedded database, then reports it up to date", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "frank-cli-"))
    const env: Record<string, string | undefined> = { ...process.env, FRANK_DATA_DIR: dataDir }
    delete env.DATABASE_URL
    try {
      const first = spawnSync(process.execPath, [BIN, "migrate"], { env, encoding: "utf8", timeout: 60_000 })
      expect(first.status, first.stderr).toBe(0)
      expect(first.stdout).toContain("migrations applied: 1_ledger, 2_access")
      const second = spawnSync(process.execPath, [BIN, "migrate"], { env, encoding: "utf8", timeout: 60_000 })
      expect(second.stdout).toContain("migrations: up to date")
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
