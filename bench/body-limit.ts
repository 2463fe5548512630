/**
 * bench/body-limit — resident memory of the host under 8 concurrent 50 MB JSON bodies
 * (`POST /v1/billing/pricing/estimate` with a valid key, as in issue 25), with the request body
 * limit (FRANK_MAX_BODY_BYTES, default 1 MiB) against the same host with the limit raised past the
 * bodies (the behaviour before the limit), in the same run. Both on embedded PGlite. Prints resident
 * memory before, at the peak, and 3 s after, and the ratios limited / unlimited.
 *
 *   npm run bench:body-limit
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { freePort } from "./support/local.js"

const ROOT = resolve(import.meta.dirname, "..")
const BODY_BYTES = 50 * 1024 * 1024
const CONCURRENT = 8
const MiB = 1024 * 1024

/** Resident set size of a process in MiB, from /proc (Linux). */
const rssMiB = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) / 1024
}

const post = (port: number, path: string, headers: Record<string, string>, body: string) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body
  }).then(async (r) => ({ status: r.status, json: (await r.json()) as Record<string, unknown> }))

/** Streams one 50 MB body; resolves with the status, whenever the host answers. */
const bigRequest = (port: number, key: string) =>
  new Promise<number>((done) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/v1/billing/pricing/estimate",
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(BODY_BYTES), "x-api-key": key }
    })
    let status = 0
    req.on("response", (res) => {
      status = res.statusCode ?? 0
      res.resume()
      res.on("end", () => done(status))
    })
    req.on("error", () => done(status))
    const head = '{"modelId":"gpt-image-1","prompt":"'
    const chunk = Buffer.alloc(MiB, "a")
    let sent = 0
    const pump = () => {
      if (sent === 0) {
        req.write(head)
        sent = head.length
      }
      while (sent < BODY_BYTES - 2 && status === 0) {
        const part = chunk.subarray(0, Math.min(MiB, BODY_BYTES - 2 - sent))
        sent += part.length
        if (!req.write(part)) return void req.once("drain", pump)
      }
      if (status === 0) req.end('"}')
    }
    pump()
  })

const measure = async (label: string, maxBodyBytes: number) => {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "frank-bench-body-"))
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "packages/host/src/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: "",
      PORT: String(port),
      FRANK_DATA_DIR: dataDir,
      FRANK_ADMIN_TOKEN: "bench",
      FRANK_MAX_BODY_BYTES: String(maxBodyBytes),
      FRANK_REQUEST_TIMEOUT_MS: "120000",
      LOG_LEVEL: "warning"
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  try {
    for (let i = 0; ; i++) {
      const up = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false
      )
      if (up) break
      if (i > 300) throw new Error("host did not start")
      await new Promise((r) => setTimeout(r, 200))
    }
    const admin = { authorization: "Bearer bench" }
    const partner = await post(port, "/admin/v1/partners", admin, '{"name":"bench"}')
    const session = await post(port, `/admin/v1/partners/${partner.json.id}/sessions`, admin, "{}")
    const key = await post(port, "/v1/billing/api-keys", { cookie: `service_token=${session.json.token}` }, "{}")
    const pid = child.pid!
    await new Promise((r) => setTimeout(r, 1000))
    const before = rssMiB(pid)
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(pid))
    }, 20)
    const statuses = await Promise.all(Array.from({ length: CONCURRENT }, () => bigRequest(port, String(key.json.key))))
    await new Promise((r) => setTimeout(r, 3000))
    clearInterval(sampler)
    const after = rssMiB(pid)
    return { label, statuses: [...new Set(statuses)].join(","), before, peak, after }
  } finally {
    child.kill("SIGTERM")
    await new Promise((r) => child.once("exit", r))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const unlimited = await measure("no limit (limit 200 MiB)", 200 * MiB)
const limited = await measure("limit 1 MiB (default)", MiB)
const row = (r: typeof limited) =>
  `| ${r.label} | ${r.statuses} | ${r.before.toFixed(0)} | ${r.peak.toFixed(0)} | ${r.after.toFixed(0)} | ${(r.peak - r.before).toFixed(0)} |`
console.log(`${CONCURRENT} concurrent ${BODY_BYTES / MiB} MB bodies, resident memory in MiB`)
console.log("| host | answers | before | peak | 3 s after | peak growth |")
console.log("| --- | --- | ---: | ---: | ---: | ---: |")
console.log(row(unlimited))
console.log(row(limited))
console.log(
  `ratio limited / unlimited: peak ${(limited.peak / unlimited.peak).toFixed(2)}, growth ${((limited.peak - limited.before) / (unlimited.peak - unlimited.before)).toFixed(3)}, after ${(limited.after / unlimited.after).toFixed(2)}`
)
