/**
 * Fuzzing every endpoint from /openapi.json against the running host: for each operation,
 * requests generated from its schemas with fast-check, then mutated (wrong types, missing and
 * extra fields, huge and unusual Unicode, deep nesting, broken JSON, wrong content types, odd
 * query strings and path ids). No answer may be 5xx and every 4xx must carry the error envelope.
 * Oversized bodies must be refused with 413 while the host's memory stays bounded.
 * `FUZZ_SEED=n` replays a run; `FUZZ_REQUESTS` sets the total (default 10,500).
 */
import { readFileSync } from "node:fs"
import { PartnerApi, routeTable } from "@frank/core/http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { arbitraryOf, type JsonSchema, resolveRef } from "./fuzz/schemaArbitrary.js"
import { undocumented } from "./fuzz/documentedCodes.js"
import { bodyMutation, contentTypes, encode, type FuzzRequest, pathId, queryMutation } from "./fuzz/mutations.js"
import { adminCredit, newPartner, type Partner } from "./hostClient.js"
import { type RunningHost, spawnHost } from "./spawnHost.js"

const SEED = Number(process.env.FUZZ_SEED ?? 24)
const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_500)

let host: RunningHost
let partner: Partner
beforeAll(async () => {
  const database = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}
  host = await spawnHost({ FRANK_TRUST_PROXY: "true", FRANK_RATE_LIMIT_MULTIPLIER: "100000", ...database })
  partner = await newPartner(host, "Fuzz LLC")
  await adminCredit(host, partner.id, 100_000, "bonus")
}, 180_000)
afterAll(async () => {
  await host?.stop()
})

interface Operation {
  readonly method: string
  readonly path: string
  readonly sessionOnly: boolean
  readonly arbitrary: fc.Arbitrary<FuzzRequest>
}

const queryOf = (doc: JsonSchema, params: ReadonlyArray<JsonSchema>) =>
  fc
    .tuple(
      ...params.map((p) =>
        fc.option(arbitraryOf(doc, p.schema ?? {}), { nil: undefined }).map((v) => [p.name as string, v] as const)
      )
    )
    .map((pairs) =>
      pairs
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${encode(k)}=${encode(typeof v === "string" ? v : JSON.stringify(v))}`)
        .join("&")
    )

/** Every operation of the document, with the arbitrary of its requests. */
const operationsOf = (doc: JsonSchema): Array<Operation> => {
  const routes = routeTable(PartnerApi)
  const out: Array<Operation> = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, JsonSchema>>))
    for (const [method, op] of Object.entries(item)) {
      const params: Array<JsonSchema> = (op.parameters ?? []).map((p: JsonSchema) => resolveRef(doc, p))
      const pathParams = params.filter((p) => p.in === "path")
      const bodySchema = op.requestBody?.content?.["application/json"]?.schema
      const facts = routes.get(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`)
      const arbitrary = fc
        .record({
          ids: fc.array(pathId, { minLength: pathParams.length, maxLength: pathParams.length }),
          query: fc.tuple(
            queryOf(
              doc,
              params.filter((p) => p.in === "query")
            ),
            queryMutation
          ),
          body: bodySchema === undefined ? fc.constant(undefined) : arbitraryOf(doc, bodySchema),
          mutate: bodyMutation,
          contentType: contentTypes
        })
        .map(({ ids, query, body, mutate, contentType }): FuzzRequest => {
          let p = path
          pathParams.forEach((param, i) => {
            p = p.replace(`{${param.name}}`, ids[i]!)
          })
          const hasBody = bodySchema !== undefined || method === "post" || method === "put" || method === "patch"
          const object = typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}
          return {
            method: method.toUpperCase(),
            path: p,
            query: query[1](query[0]),
            contentType: hasBody ? contentType : undefined,
            body: hasBody ? mutate(object as Record<string, unknown>) : undefined
          }
        })
      out.push({ method: method.toUpperCase(), path, sessionOnly: facts?.sessionOnly ?? false, arbitrary })
    }
  return out
}

/** `{statusCode, message, code?}` for billing/webhooks/keys; `{success: false, code, message}` for generation. */
const hasEnvelope = (text: string): boolean => {
  try {
    const body = JSON.parse(text)
    if (typeof body !== "object" || body === null) return false
    if (typeof body.statusCode === "number" && "message" in body) return true
    return body.success === false && typeof body.code === "string" && "message" in body
  } catch {
    return false
  }
}

const send = async (request: FuzzRequest, auth: Record<string, string>) => {
  const headers: Record<string, string> = { ...auth }
  if (request.contentType !== undefined) headers["content-type"] = request.contentType
  const url = `${host.baseUrl}${request.path}${request.query ? `?${request.query}` : ""}`
  const res = await fetch(url, { method: request.method, headers, body: request.body ?? null, redirect: "manual" })
  return { status: res.status, text: await res.text() }
}

/** Runs `tasks` with `width` in flight at once. */
const pool = async <A>(items: ReadonlyArray<A>, width: number, run: (a: A) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]!)
    })
  )
}

const rssBytes = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return Number(m?.[1] ?? 0) * 1024
}

type Fuzzed = { readonly op: Operation; readonly r: FuzzRequest; readonly anonymous: boolean }

/** Sends `part` of the requests; answers what broke, by operation and status. */
const fuzzPart = async (doc: JsonSchema, part: ReadonlyArray<Fuzzed>, tally: Tally): Promise<Map<string, string>> => {
  const failures = new Map<string, string>()
  await pool(part, 8, async ({ op, r, anonymous }) => {
    const auth = anonymous ? {} : op.sessionOnly ? partner.cookie : partner.key
    if (host.process.exitCode !== null || host.process.signalCode !== null) {
      failures.set(
        "host",
        `the host died (${host.process.exitCode ?? host.process.signalCode}):\n${host.logs().slice(-2000)}`
      )
      return
    }
    // A request the host dropped without an answer is a failure too (status 0), sent once: a
    // refused body used to leave its keep-alive socket to be closed under a later request
    // (docs/reliability.md, "What the campaigns found").
    const res = await send(r, auth).catch((e: Error) => ({ status: 0, text: `dropped: ${String(e.cause ?? e)}` }))
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1)
    if (res.status === 401 && !anonymous) tally.unauthorized.set(op.path, (tally.unauthorized.get(op.path) ?? 0) + 1)
    const broken = res.status === 0 || res.status >= 500 || (res.status >= 400 && !hasEnvelope(res.text))
    const signature = `${op.method} ${op.path} -> ${res.status}`
    if (broken && !failures.has(signature))
      failures.set(
        signature,
        `${r.method} ${r.path}?${r.query} [${r.contentType}] ${(r.body ?? "").slice(0, 200)} => ${res.text.slice(0, 300)}`
      )
    const unlisted = broken ? undefined : undocumented(doc, op.method, op.path, res.status, res.text)
    if (unlisted !== undefined) failures.set(`${op.method} ${op.path}: ${unlisted}`, res.text.slice(0, 300))
  })
  return failures
}

interface Tally {
  readonly statuses: Map<number, number>
  readonly unauthorized: Map<string, number>
}

/** The requests run in parts, each reported on its own. */
const PARTS = 4

describe("fuzzing every endpoint from /openapi.json", { timeout: 600_000 }, () => {
  let requests: ReadonlyArray<Fuzzed> = []
  let doc: JsonSchema
  const tally: Tally = { statuses: new Map(), unauthorized: new Map() }

  beforeAll(async () => {
    doc = await (await fetch(`${host.baseUrl}/openapi.json`)).json()
    const operations = operationsOf(doc)
    expect(operations.length).toBeGreaterThanOrEqual(30)
    const perOperation = Math.ceil(TOTAL / operations.length)
    const generated: Array<Fuzzed> = []
    let slowestMs = 0
    const generating = performance.now()
    for (const [i, op] of operations.entries()) {
      const started = performance.now()
      for (const [j, r] of fc.sample(op.arbitrary, { numRuns: perOperation, seed: SEED + i }).entries())
        generated.push({ op, r, anonymous: j % 20 === 0 })
      slowestMs = Math.max(slowestMs, performance.now() - started)
      // Generating blocks this process while fetch's pool holds idle keep-alive sockets. Blocked
      // past the host's keep-alive timeout, the pool would send the first request on a socket the
      // host has closed; a turn of the loop per operation lets it retire idle sockets in time.
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    requests = generated
    const ms = (t: number) => Math.round(t).toLocaleString("en")
    console.log(
      `fuzz: ${requests.length} requests generated in ${ms(performance.now() - generating)} ms, at most ${ms(slowestMs)} ms per operation`
    )
  })

  for (let part = 0; part < PARTS; part++)
    it(`${TOTAL} generated and mutated requests, part ${part + 1} of ${PARTS}: no 5xx, every 4xx with the envelope and a documented code`, async () => {
      const size = Math.ceil(requests.length / PARTS)
      const failures = await fuzzPart(doc, requests.slice(part * size, (part + 1) * size), tally)
      expect([...failures].map(([k, v]) => `${k}: ${v}`)).toEqual([])
    })

  it("the parts together sent at least 10,000 requests", () => {
    console.log(`fuzz: ${requests.length} requests, statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}`)
    console.log(`fuzz: 401 with credentials by route ${JSON.stringify(Object.fromEntries(tally.unauthorized))}`)
    expect(requests.length).toBeGreaterThanOrEqual(10_000)
    expect([...tally.statuses.values()].reduce((a, b) => a + b, 0)).toBe(requests.length)
  })

  it("oversized bodies are refused with 413 early, and the host's memory stays bounded", async () => {
    const pid = host.process.pid!
    const before = rssBytes(pid)
    const huge = `{"url":"${"a".repeat(64 * 1024 * 1024)}"}`
    const posts = ["/v1/webhooks/endpoints", "/v1/billing/pricing/estimate", "/v1/tasks", "/v1/billing/payment/link"]
    let peak = before
    const watch = setInterval(() => {
      peak = Math.max(peak, rssBytes(pid))
    }, 20)
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        send(
          { method: "POST", path: posts[i % posts.length]!, query: "", contentType: "application/json", body: huge },
          partner.key
        ).catch((e: Error) => ({ status: 0, text: String(e.cause ?? e) }))
      )
    )
    clearInterval(watch)
    for (const a of answers) {
      // Refusing early may close the connection before the upload ends: the client sees a reset.
      if (a.status === 0) expect(a.text).toMatch(/ECONNRESET|EPIPE|other side closed|socket/i)
      else {
        expect(a.status, a.text).toBe(413)
        expect(hasEnvelope(a.text), a.text).toBe(true)
      }
    }
    // 8 × 64 MiB were sent; a host that buffered them would grow by half a gigabyte.
    expect(peak - before).toBeLessThan(128 * 1024 * 1024)
  })
})
