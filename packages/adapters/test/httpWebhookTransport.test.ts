/**
 * The HTTP webhook transport and the dial-time address guard, against real servers on loopback.
 * With the guard lifted (allowPrivateNetwork) the transport talks to local receivers; with it on,
 * the SSRF corpus must be refused before any socket is opened, which the tests check three ways:
 * the outcome, the (spied) dialer never called, and a listening server never seeing a connection.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { createServer as createNetServer, type Socket } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Webhooks } from "@frank/core"
import { Effect, Fiber, type Scope } from "effect"
import { buildConnector, request } from "undici"
import {
  AddressRefusedError,
  GuardedDispatcher,
  type HostLookup,
  HttpWebhookTransport,
  isAddressRefusedError
} from "../src/index.js"
import { makeGuardedConnector } from "../src/net/guardedConnector.js"
import { systemLookup } from "../src/net/hostLookup.js"
import { refuseConnected, refuseResolved, refuseUnresolved } from "../src/net/internal/addressGuard.js"

// ---------------------------------------------------------------------------------------------
// Local servers

interface Hit {
  readonly method: string
  readonly url: string
  readonly rawHeaders: ReadonlyArray<string>
  readonly body: Buffer
}

interface Receiver {
  readonly port: number
  readonly url: string
  readonly hits: Array<Hit>
  /** TCP connections accepted, to see keep-alive reuse. */
  readonly connections: () => number
  /** Requests whose headers arrived, body or not. */
  readonly starts: () => number
}

/** A node:http server on 127.0.0.1; `respond` sees each request after its body is read. */
const receiver = (
  respond: (req: IncomingMessage, res: ServerResponse, hit: Hit) => void
): Effect.Effect<Receiver, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Receiver & { readonly close: () => Promise<void> }>((resolve) => {
          const hits: Array<Hit> = []
          let connections = 0
          let starts = 0
          const server = createServer((req, res) => {
            starts++
            const chunks: Array<Buffer> = []
            req.on("data", (c: Buffer) => chunks.push(c))
            req.on("end", () => {
              const hit = {
                method: req.method ?? "",
                url: req.url ?? "",
                rawHeaders: req.rawHeaders,
                body: Buffer.concat(chunks)
              }
              hits.push(hit)
              respond(req, res, hit)
            })
          })
          server.on("connection", () => connections++)
          server.listen(0, "127.0.0.1", () => {
            const address = server.address()
            const port = typeof address === "object" && address !== null ? address.port : 0
            resolve({
              port,
              url: `http://127.0.0.1:${port}`,
              hits,
              connections: () => connections,
              starts: () => starts,
              close: () =>
                new Promise<void>((done) => {
                  server.closeAllConnections()
                  server.close(() => done())
                })
            })
          })
        })
    ),
    (r) => Effect.promise(() => r.close())
  )

/** A raw TCP listener on every loopback address (dual stack "::"), counting connections only. */
const tcpListener = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ readonly port: number; readonly connections: () => number; readonly close: () => Promise<void> }>(
        (resolve) => {
          let connections = 0
          const sockets = new Set<Socket>()
          const server = createNetServer((socket) => {
            connections++
            sockets.add(socket)
            socket.on("error", () => {})
            socket.on("close", () => sockets.delete(socket))
          })
          server.listen(0, "::", () => {
            const address = server.address()
            resolve({
              port: typeof address === "object" && address !== null ? address.port : 0,
              connections: () => connections,
              close: () =>
                new Promise<void>((done) => {
                  for (const s of sockets) s.destroy()
                  server.close(() => done())
                })
            })
          })
        }
      )
  ),
  (l) => Effect.promise(() => l.close())
)

/** A port nothing listens on: bind, read the port, close. */
const freePort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const server = createNetServer()
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        server.close(() => resolve(port))
      })
    })
)

// ---------------------------------------------------------------------------------------------
// Transports

/** Guard lifted: the dev/test configuration that lets http://127.0.0.1 receivers work. */
const openTransport = Effect.acquireRelease(
  Effect.sync(() => GuardedDispatcher.makeAgent({ allowPrivateNetwork: true })),
  (agent) => Effect.promise(() => agent.destroy())
).pipe(Effect.flatMap((dispatcher) => HttpWebhookTransport.make({ dispatcher, allowPrivateNetwork: true })))

/** The same over an agent whose sockets can be held: batches are written ahead of `release`. */
const holdingTransport = Effect.acquireRelease(
  Effect.sync(() => GuardedDispatcher.makeHoldingAgent({ allowPrivateNetwork: true })),
  ({ agent }) => Effect.promise(() => agent.destroy())
).pipe(
  Effect.flatMap(({ agent, sockets }) =>
    HttpWebhookTransport.make({ dispatcher: agent, sockets, allowPrivateNetwork: true })
  )
)

interface Spies {
  readonly dials: Array<{ readonly hostname: string; readonly servername: string | undefined; readonly port: string }>
  readonly lookups: Array<string>
}

/** Records every dial and lookup, then behaves like the real thing. */
const spied = (lookup: HostLookup) => {
  const spies: Spies = { dials: [], lookups: [] }
  const real = buildConnector({})
  const dial: buildConnector.connector = (target, callback) => {
    spies.dials.push({ hostname: target.hostname, servername: target.servername, port: target.port })
    real(target, callback)
  }
  const countingLookup: HostLookup = (hostname) => {
    spies.lookups.push(hostname)
    return lookup(hostname)
  }
  return { spies, dial, lookup: countingLookup }
}

/** Guard on, with a spied dialer and the given resolver. */
const guardedTransport = (lookup: HostLookup) =>
  Effect.gen(function* () {
    const { spies, dial, lookup: countingLookup } = spied(lookup)
    const agent = yield* Effect.acquireRelease(
      Effect.sync(() => GuardedDispatcher.makeAgent({ allowPrivateNetwork: false, lookup: countingLookup, dial })),
      (a) => Effect.promise(() => a.destroy())
    )
    return {
      spies,
      agent,
      transport: yield* HttpWebhookTransport.make({ dispatcher: agent, allowPrivateNetwork: false })
    }
  })

/** A fake DNS: names map to fixed answers, anything else is NXDOMAIN. */
const fakeDns =
  (records: Record<string, ReadonlyArray<string>>): HostLookup =>
  async (hostname) => {
    const answers = records[hostname]
    if (answers === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
    return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }

const attempt = (url: string, overrides: Partial<Webhooks.AttemptRequest> = {}): Webhooks.AttemptRequest => ({
  url,
  headers: { "Content-Type": "application/json" },
  body: new TextEncoder().encode('{"type":"ping"}'),
  timeoutMs: 5_000,
  ...overrides
})

const send = (transport: Webhooks.WebhookTransportShape, request: Webhooks.AttemptRequest) => transport.send(request)

const expectTag = <T extends Webhooks.AttemptOutcome["_tag"]>(
  outcome: Webhooks.AttemptOutcome,
  tag: T
): Extract<Webhooks.AttemptOutcome, { _tag: T }> => {
  expect(outcome._tag, JSON.stringify(outcome)).toBe(tag)
  return outcome as Extract<Webhooks.AttemptOutcome, { _tag: T }>
}

// ---------------------------------------------------------------------------------------------

describe("HttpWebhookTransport, guard lifted (local receivers)", () => {
  it.scopedLive("sends POST with the exact headers and body bytes, and reports 2xx and 5xx statuses", () =>
    Effect.gen(function* () {
      let status = 204
      const server = yield* receiver((_req, res) => {
        res.statusCode = status
        res.end()
      })
      const transport = yield* openTransport
      const headers = {
        "Content-Type": "application/json",
        "Webhook-Id": "msg_2Yh3",
        "Webhook-Timestamp": "1700000000",
        "Webhook-Signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
        "User-Agent": "Frank-Webhooks/1"
      }
      // Not valid UTF-8 on purpose: the bytes must pass through untouched.
      const body = new Uint8Array([0x7b, 0x00, 0xff, 0xfe, 0x0a, 0xc3, 0x28, 0x7d])
      const first = yield* send(transport, attempt(`${server.url}/hooks/in?x=1`, { headers, body }))
      expect(expectTag(first, "Answered").status).toBe(204)

      const hit = server.hits[0]!
      expect(hit.method).toBe("POST")
      expect(hit.url).toBe("/hooks/in?x=1")
      expect(Buffer.compare(hit.body, Buffer.from(body))).toBe(0)
      const raw = hit.rawHeaders
      for (const [name, value] of Object.entries(headers)) {
        const index = raw.indexOf(name) // rawHeaders keeps the case we sent
        expect(index, name).toBeGreaterThanOrEqual(0)
        expect(raw[index + 1]).toBe(value)
      }

      status = 503
      const second = yield* send(transport, attempt(server.url, { headers, body }))
      expect(expectTag(second, "Answered").status).toBe(503)
    })
  )

  it.scopedLive("reuses keep-alive connections for consecutive attempts", () =>
    Effect.gen(function* () {
      const server = yield* receiver((_req, res) => res.end("ok, thanks"))
      const transport = yield* openTransport
      for (let i = 0; i < 20; i++) expectTag(yield* send(transport, attempt(server.url)), "Answered")
      expect(server.hits.length).toBe(20)
      // Not exactly 1: when the next request is dispatched in the same tick the previous body
      // ended, undici's pool still counts that client busy and opens a second one (a bare undici
      // `request` loop does the same). What matters is that it does not grow with the count.
      expect(server.connections()).toBeLessThanOrEqual(2)
    })
  )

  it.scopedLive("reports a large answer without reading all of it", () =>
    Effect.gen(function* () {
      const big = Buffer.alloc(4 * 1024 * 1024, 0x61)
      const server = yield* receiver((_req, res) => {
        res.statusCode = 200
        res.end(big)
      })
      const transport = yield* openTransport
      expect(expectTag(yield* send(transport, attempt(server.url)), "Answered").status).toBe(200)
    })
  )

  it.scopedLive("reports a 302 as Answered 302 and never requests the redirect target", () =>
    Effect.gen(function* () {
      const target = yield* receiver((_req, res) => res.end())
      const redirecting = yield* receiver((_req, res) => {
        res.writeHead(302, { Location: `http://127.0.0.1:${target.port}/internal` })
        res.end()
      })
      const transport = yield* openTransport
      const outcome = yield* send(transport, attempt(redirecting.url))
      expect(expectTag(outcome, "Answered").status).toBe(302)
      expect(redirecting.hits.length).toBe(1)
      expect(target.hits.length).toBe(0)
      expect(target.connections()).toBe(0)
    })
  )

  it.scopedLive("times out a receiver that holds the request, and hangs up on it", () =>
    Effect.gen(function* () {
      let serverSawClose: Promise<void> = Promise.reject(new Error("no request arrived"))
      serverSawClose.catch(() => {})
      const server = yield* receiver((req) => {
        serverSawClose = new Promise((resolve) => req.socket.on("close", () => resolve()))
      })
      const transport = yield* openTransport
      const started = Date.now()
      const outcome = yield* send(transport, attempt(server.url, { timeoutMs: 300 }))
      expectTag(outcome, "TimedOut")
      expect(Date.now() - started).toBeLessThan(3_000)
      // The abort reached the socket: the receiver sees the connection close.
      yield* Effect.promise(() => serverSawClose).pipe(
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error("socket not closed") })
      )
    })
  )

  it.scopedLive("times out a receiver that sends the status but never finishes the body", () =>
    Effect.gen(function* () {
      const server = yield* receiver((_req, res) => {
        res.writeHead(200, { "Content-Length": "100" })
        res.write("partial")
      })
      const transport = yield* openTransport
      expectTag(yield* send(transport, attempt(server.url, { timeoutMs: 300 })), "TimedOut")
    })
  )

  it.scopedLive("aborts the request when the sending fiber is interrupted", () =>
    Effect.gen(function* () {
      let arrived!: () => void
      const requestArrived = new Promise<void>((resolve) => {
        arrived = resolve
      })
      let serverSawClose!: Promise<void>
      const server = yield* receiver((req) => {
        serverSawClose = new Promise((resolve) => req.socket.on("close", () => resolve()))
        arrived()
      })
      const transport = yield* openTransport
      const fiber = yield* Effect.fork(send(transport, attempt(server.url, { timeoutMs: 60_000 })))
      yield* Effect.promise(() => requestArrived)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => serverSawClose).pipe(
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error("socket not closed") })
      )
    })
  )

  it.scopedLive("reports a refused connection as ConnectionFailed", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const transport = yield* openTransport
      const failed = expectTag(yield* send(transport, attempt(`http://127.0.0.1:${port}/`)), "ConnectionFailed")
      expect(failed.message).toContain("ECONNREFUSED")
    })
  )

  it.scopedLive("reports a receiver that resets mid-body as ConnectionFailed", () =>
    Effect.gen(function* () {
      const server = yield* receiver((req, res) => {
        res.writeHead(200, { "Content-Length": "1000" })
        res.write("partial", () => req.socket.destroy())
      })
      const transport = yield* openTransport
      expectTag(yield* send(transport, attempt(server.url)), "ConnectionFailed")
    })
  )

  it.scopedLive("works as a Layer providing WebhookTransport", () =>
    Effect.gen(function* () {
      const server = yield* receiver((_req, res) => {
        res.statusCode = 202
        res.end()
      })
      const outcome = yield* Effect.flatMap(Webhooks.WebhookTransport, (t) => t.send(attempt(server.url))).pipe(
        Effect.provide(HttpWebhookTransport.layerWith({ allowPrivateNetwork: true }))
      )
      expect(expectTag(outcome, "Answered").status).toBe(202)
    })
  )
})

/** Runs a batch and collects what it reported, index by index, in the order reported. */
const sendBatch = (
  transport: Webhooks.WebhookTransportShape,
  requests: ReadonlyArray<Webhooks.AttemptRequest>,
  release: Effect.Effect<boolean> = Effect.succeed(true)
) =>
  Effect.gen(function* () {
    const reports: Array<readonly [number, Webhooks.AttemptOutcome]> = []
    yield* transport.sendBatch(
      requests,
      (index, outcome) => {
        reports.push([index, outcome])
      },
      release
    )
    return reports
  })

describe.each([
  ["", openTransport],
  [", sockets held", holdingTransport]
])("HttpWebhookTransport.sendBatch (the worker's path%s)", (_, openTransport) => {
  it.scopedLive(
    "reports each attempt once under its own index: answers, a timeout, a refusal and a failed connection",
    () =>
      Effect.gen(function* () {
        const server = yield* receiver((req, res) => {
          if (req.url === "/hold") return
          res.statusCode = req.url === "/fail" ? 503 : 200
          res.end()
        })
        const port = yield* freePort
        const transport = yield* openTransport
        const requests = [
          attempt(`${server.url}/ok`),
          attempt(`${server.url}/hold`, { timeoutMs: 300 }),
          attempt(`${server.url}/fail`),
          attempt("ftp://example.com/"),
          attempt(`http://127.0.0.1:${port}/`)
        ]
        const reports = yield* sendBatch(transport, requests)
        expect(reports.map(([i]) => i).sort()).toEqual([0, 1, 2, 3, 4])
        const byIndex = new Map(reports)
        expect(expectTag(byIndex.get(0) as Webhooks.AttemptOutcome, "Answered").status).toBe(200)
        expectTag(byIndex.get(1) as Webhooks.AttemptOutcome, "TimedOut")
        expect(expectTag(byIndex.get(2) as Webhooks.AttemptOutcome, "Answered").status).toBe(503)
        expectTag(byIndex.get(3) as Webhooks.AttemptOutcome, "AddressRefused")
        expectTag(byIndex.get(4) as Webhooks.AttemptOutcome, "ConnectionFailed")
        // The held request came last: the others did not wait for its timeout.
        expect(reports[reports.length - 1]?.[0]).toBe(1)
        expect(server.hits.map((h) => h.url).sort()).toEqual(["/fail", "/hold", "/ok"])
      })
  )

  it.scopedLive("completes at once for an empty batch", () =>
    Effect.gen(function* () {
      const transport = yield* openTransport
      expect(yield* sendBatch(transport, [])).toEqual([])
    })
  )

  it.scopedLive("interrupted, aborts the attempts still in flight and reports nothing more", () =>
    Effect.gen(function* () {
      let held = 0
      let allArrived!: () => void
      const arrived = new Promise<void>((resolve) => {
        allArrived = resolve
      })
      const closed: Array<Promise<void>> = []
      const server = yield* receiver((req, res) => {
        if (req.url === "/ok") {
          res.end()
          return
        }
        closed.push(new Promise((resolve) => req.socket.on("close", () => resolve())))
        if (++held === 2) allArrived()
      })
      const transport = yield* openTransport
      const reports: Array<number> = []
      const fiber = yield* Effect.fork(
        transport.sendBatch(
          [
            attempt(`${server.url}/ok`),
            attempt(`${server.url}/hold`, { timeoutMs: 60_000 }),
            attempt(`${server.url}/hold`, { timeoutMs: 60_000 })
          ],
          (i) => {
            reports.push(i)
          },
          Effect.succeed(true)
        )
      )
      yield* Effect.promise(() => arrived)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => Promise.all(closed)).pipe(
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error("sockets not closed") })
      )
      expect(reports).toEqual([0])
    })
  )

  it.scopedLive("sends nothing and reports nothing when release answers false", () =>
    Effect.gen(function* () {
      const server = yield* receiver((_req, res) => res.end())
      const port = yield* freePort
      const transport = yield* openTransport
      const reports = yield* sendBatch(
        transport,
        [attempt(`${server.url}/a`), attempt(`${server.url}/b`), attempt(`http://127.0.0.1:${port}/`)],
        Effect.succeed(false)
      )
      yield* Effect.sleep("200 millis")
      expect(reports).toEqual([])
      expect(server.starts()).toBe(0)
    })
  )
})

describe("HttpWebhookTransport.sendBatch, sockets held: written ahead, released by the mark", () => {
  /** A release that waits a while, then notes what the receiver had seen by then. */
  const observedRelease = (server: Receiver, go: boolean) => {
    const seen: Array<{ readonly connections: number; readonly starts: number }> = []
    const release = Effect.sleep("150 millis").pipe(
      Effect.zipRight(Effect.sync(() => seen.push({ connections: server.connections(), starts: server.starts() }))),
      Effect.as(go)
    )
    return { seen, release }
  }

  it.scopedLive("opens the connections before release and lets no request start until it answers", () =>
    Effect.gen(function* () {
      const server = yield* receiver((_req, res) => res.end())
      const transport = yield* holdingTransport
      // A first batch leaves a keep-alive connection, which the next batch may reuse.
      yield* sendBatch(transport, [attempt(`${server.url}/warm`)])
      const { seen, release } = observedRelease(server, true)
      const reports = yield* sendBatch(
        transport,
        [attempt(`${server.url}/a`), attempt(`${server.url}/b`), attempt(`${server.url}/c`)],
        release
      )
      // By the release every request had its connection, and none had started.
      expect(seen[0]?.connections).toBeGreaterThanOrEqual(3)
      expect(seen[0]?.starts).toBe(1)
      expect(reports.map(([i, o]) => [i, o._tag]).sort()).toEqual([
        [0, "Answered"],
        [1, "Answered"],
        [2, "Answered"]
      ])
      expect(server.hits.map((h) => h.url).sort()).toEqual(["/a", "/b", "/c", "/warm"])
    })
  )

  it.scopedLive("drops the written requests unsent when release answers false", () =>
    Effect.gen(function* () {
      const server = yield* receiver((_req, res) => res.end())
      const transport = yield* holdingTransport
      yield* sendBatch(transport, [attempt(`${server.url}/warm`)])
      const { seen, release } = observedRelease(server, false)
      const reports = yield* sendBatch(transport, [attempt(`${server.url}/a`), attempt(`${server.url}/b`)], release)
      yield* Effect.sleep("200 millis")
      expect(seen[0]?.connections).toBeGreaterThanOrEqual(2)
      expect(seen[0]?.starts).toBe(1)
      expect(reports).toEqual([])
      expect(server.starts()).toBe(1)
      // The pool still works: the dropped connections were closed, not left with a request half sent.
      expect((yield* sendBatch(transport, [attempt(`${server.url}/after`)])).map(([, o]) => o._tag)).toEqual([
        "Answered"
      ])
    })
  )

  it.scopedLive("reports an attempt that ended before release only after it", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const transport = yield* holdingTransport
      const reports: Array<string> = []
      const order: Array<string> = []
      yield* transport.sendBatch(
        [attempt(`http://127.0.0.1:${port}/`)],
        (_, outcome) => {
          reports.push(outcome._tag)
          order.push("reported")
        },
        Effect.sleep("150 millis").pipe(Effect.zipRight(Effect.sync(() => order.push("released"))), Effect.as(true))
      )
      expect(reports).toEqual(["ConnectionFailed"])
      expect(order).toEqual(["released", "reported"])
    })
  )
})

describe("HttpWebhookTransport, guard on", () => {
  it.scopedLive("refuses non-https URLs", () =>
    Effect.gen(function* () {
      const { spies, transport } = yield* guardedTransport(fakeDns({ "hooks.example.com": ["93.184.216.34"] }))
      expectTag(yield* send(transport, attempt("http://hooks.example.com/")), "AddressRefused")
      expect(spies.lookups).toEqual([])
      expect(spies.dials).toEqual([])
    })
  )

  it.scopedLive("refuses the SSRF literal corpus without resolving or connecting", () =>
    Effect.gen(function* () {
      const listener = yield* tcpListener
      const { spies, transport } = yield* guardedTransport(systemLookup)
      const p = listener.port
      const corpus = [
        `https://localhost:${p}/`,
        `https://127.0.0.1:${p}/`,
        `https://[::1]:${p}/`,
        `https://[::ffff:127.0.0.1]:${p}/`,
        `https://2130706433:${p}/`,
        `https://0x7f.1:${p}/`,
        `https://10.0.0.1:${p}/`,
        `https://169.254.169.254:${p}/latest/meta-data/`,
        `https://100.64.0.1:${p}/`
      ]
      for (const url of corpus) {
        const refused = expectTag(yield* send(transport, attempt(url, { timeoutMs: 2_000 })), "AddressRefused")
        expect(refused.message.length, url).toBeGreaterThan(0)
      }
      expect(spies.lookups).toEqual([])
      expect(spies.dials).toEqual([])
      expect(listener.connections()).toBe(0)
    })
  )

  it.scopedLive("refuses host names that resolve to non-public addresses, before connecting", () =>
    Effect.gen(function* () {
      const listener = yield* tcpListener
      const records: Record<string, ReadonlyArray<string>> = {
        "private.example.com": ["10.1.2.3"],
        "loopback.example.com": ["127.0.0.1"],
        "loopback6.example.com": ["::1"],
        "mapped.example.com": ["::ffff:127.0.0.1"],
        "metadata.example.com": ["169.254.169.254"],
        "cgnat.example.com": ["100.64.0.1"],
        // One public address does not excuse a private one: the whole name is refused.
        "mixed.example.com": ["93.184.216.34", "10.0.0.5"],
        "mixed6.example.com": ["2606:4700:4700::1111", "fd00::1"]
      }
      const { spies, transport } = yield* guardedTransport(fakeDns(records))
      for (const host of Object.keys(records)) {
        const refused = expectTag(
          yield* send(transport, attempt(`https://${host}:${listener.port}/`, { timeoutMs: 2_000 })),
          "AddressRefused"
        )
        expect(refused.message).toContain(host)
        // The partner reads this message (lastError): it names the host, never our resolver's answer.
        for (const address of records[host] ?? []) expect(refused.message).not.toContain(address)
      }
      // The names were resolved by the guard, and nothing was dialled.
      expect(spies.lookups).toEqual(Object.keys(records))
      expect(spies.dials).toEqual([])
      expect(listener.connections()).toBe(0)
    })
  )

  it.scopedLive("dials a public name at its vetted IP, keeping the name as TLS servername", () =>
    Effect.gen(function* () {
      // Control case for the refusals above: a public answer is let through to the dialer.
      const seen: Array<{ hostname: string; servername: string | undefined; port: string }> = []
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() =>
          GuardedDispatcher.makeAgent({
            allowPrivateNetwork: false,
            lookup: fakeDns({ "hooks.example.com": ["93.184.216.34"] }),
            dial: (target, callback) => {
              seen.push({ hostname: target.hostname, servername: target.servername, port: target.port })
              callback(
                Object.assign(new Error("connect ECONNREFUSED 93.184.216.34:8443"), { code: "ECONNREFUSED" }),
                null
              )
            }
          })
        ),
        (a) => Effect.promise(() => a.destroy())
      )
      const transport = yield* HttpWebhookTransport.make({ dispatcher: agent, allowPrivateNetwork: false })
      const failed = expectTag(yield* send(transport, attempt("https://hooks.example.com:8443/in")), "ConnectionFailed")
      expect(failed.message).toContain("ECONNREFUSED")
      expect(seen).toEqual([{ hostname: "93.184.216.34", servername: "hooks.example.com", port: "8443" }])
    })
  )

  it.scopedLive(
    "refuses a name that does not resolve exactly as it refuses a private one, so the outcome cannot probe internal names",
    () =>
      Effect.gen(function* () {
        const { spies, transport } = yield* guardedTransport(
          fakeDns({ "db.corp.example": ["10.20.30.40"], "empty.example.com": [] })
        )
        const missing = expectTag(yield* send(transport, attempt("https://nowhere.corp.example/")), "AddressRefused")
        const internal = expectTag(yield* send(transport, attempt("https://db.corp.example/")), "AddressRefused")
        const empty = expectTag(yield* send(transport, attempt("https://empty.example.com/")), "AddressRefused")
        // The same words, the host name aside: the partner cannot tell which of the three it was.
        expect(missing.message.replace("nowhere.corp.example", "<host>")).toBe(
          internal.message.replace("db.corp.example", "<host>")
        )
        expect(empty.message.replace("empty.example.com", "<host>")).toBe(
          internal.message.replace("db.corp.example", "<host>")
        )
        expect(missing.message).not.toContain("ENOTFOUND")
        expect(spies.dials).toEqual([])
      })
  )

  it.scopedLive(
    "reports a lookup that failed for another reason (resolver unreachable) as ConnectionFailed, worth retrying",
    () =>
      Effect.gen(function* () {
        const { spies, transport } = yield* guardedTransport(async (hostname) => {
          throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: "EAI_AGAIN" })
        })
        const failed = expectTag(yield* send(transport, attempt("https://hooks.example.com/")), "ConnectionFailed")
        expect(failed.message).toContain("EAI_AGAIN")
        expect(spies.dials).toEqual([])
      })
  )
})

describe("guarded agent without the transport's URL check (as media import will use it)", () => {
  it.scopedLive("refuses IP literals at dial time, so redirects to literals cannot leak", () =>
    Effect.gen(function* () {
      const listener = yield* tcpListener
      const { spies, agent } = yield* guardedTransport(systemLookup)
      const p = listener.port
      for (const url of [
        `http://127.0.0.1:${p}/`,
        `http://127.0.0.2:${p}/`,
        `http://[::1]:${p}/`,
        `http://[::ffff:127.0.0.1]:${p}/`,
        `http://2130706433:${p}/`,
        `http://0x7f.1:${p}/`,
        `https://127.0.0.1:${p}/`,
        `http://169.254.169.254:${p}/`,
        `http://93.184.216.34:${p}/` // even public literals: only names are dialled
      ]) {
        const error = yield* Effect.flip(Effect.tryPromise(() => request(url, { dispatcher: agent })))
        expect(isAddressRefusedError(error.error), url).toBe(true)
      }
      expect(spies.lookups).toEqual([])
      expect(spies.dials).toEqual([])
      expect(listener.connections()).toBe(0)
    })
  )

  it.scopedLive("refuses localhost through the system resolver", () =>
    Effect.gen(function* () {
      const listener = yield* tcpListener
      const { spies, agent } = yield* guardedTransport(systemLookup)
      const error = yield* Effect.flip(
        Effect.tryPromise(() => request(`http://localhost:${listener.port}/`, { dispatcher: agent }))
      )
      expect(isAddressRefusedError(error.error)).toBe(true)
      expect(spies.lookups).toEqual(["localhost"])
      expect(spies.dials).toEqual([])
      expect(listener.connections()).toBe(0)
    })
  )

  it.scopedLive("refuses a connection whose socket lands on a private address despite a public DNS answer", () =>
    Effect.gen(function* () {
      const server = yield* receiver((_req, res) => res.end())
      // The dialer is handed the vetted public IP but ends up on loopback, as a rebinding trick,
      // NAT or transparent proxy could make happen; the post-connect check must catch it.
      const real = buildConnector({})
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() =>
          GuardedDispatcher.makeAgent({
            allowPrivateNetwork: false,
            lookup: fakeDns({ "rebind.example.com": ["93.184.216.34"] }),
            dial: (target, callback) => real({ ...target, hostname: "127.0.0.1", port: String(server.port) }, callback)
          })
        ),
        (a) => Effect.promise(() => a.destroy())
      )
      const error = yield* Effect.flip(
        Effect.tryPromise(() => request("http://rebind.example.com/", { dispatcher: agent }))
      )
      expect(isAddressRefusedError(error.error)).toBe(true)
      expect(String(error.error)).toContain("rebind.example.com")
      expect(String(error.error)).not.toContain("127.0.0.1")
      // The socket was opened (that is what the check looks at) but no request went over it.
      expect(server.connections()).toBe(1)
      expect(server.hits.length).toBe(0)
    })
  )

  it.effect("tries a name's vetted addresses in turn and reports the last failure", () =>
    Effect.gen(function* () {
      const dialled: Array<string> = []
      const connector = makeGuardedConnector({
        allowPrivateNetwork: false,
        lookup: fakeDns({ "dual.example.com": ["2606:4700:4700::1111", "93.184.216.34"] }),
        dial: (target, callback) => {
          dialled.push(target.hostname)
          callback(Object.assign(new Error(`connect ENETUNREACH ${target.hostname}`), { code: "ENETUNREACH" }), null)
        }
      })
      const error = yield* Effect.async<never, Error>((resume) =>
        connector(
          { hostname: "dual.example.com", host: "dual.example.com", protocol: "https:", port: "" },
          (err, socket) => {
            if (err !== null) resume(Effect.fail(err))
            else socket.destroy()
          }
        )
      ).pipe(Effect.flip)
      expect(dialled).toEqual(["2606:4700:4700::1111", "93.184.216.34"])
      expect(error.message).toContain("93.184.216.34")
      expect(isAddressRefusedError(error)).toBe(false)
    })
  )
})

describe("address guard decisions", () => {
  it("refuses a connected socket whose peer is not public", () => {
    for (const peer of [
      "127.0.0.1",
      "::1",
      "::ffff:127.0.0.1",
      "10.0.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "fe80::1",
      "0.0.0.0"
    ])
      expect(refuseConnected("hooks.example.com", peer), peer).toContain("hooks.example.com")
    // The reason is shown to whoever registered the URL: it must not name the internal peer.
    for (const peer of ["127.0.0.1", "10.0.0.1", "169.254.169.254", "fd00::1"])
      expect(refuseConnected("hooks.example.com", peer), peer).not.toContain(peer)
    expect(refuseConnected("hooks.example.com", undefined)).toBeDefined()
    for (const peer of ["93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect(refuseConnected("hooks.example.com", peer), peer).toBeUndefined()
  })

  it("refuses a resolved set if any address is not public", () => {
    expect(refuseResolved("a.example.com", ["93.184.216.34", "8.8.8.8"])).toBeUndefined()
    const refused = refuseResolved("a.example.com", ["93.184.216.34", "192.168.1.1"])
    expect(refused).toContain("a.example.com")
    expect(refused).not.toContain("192.168.1.1")
  })

  it("refuses a name without addresses with the private-address reason; other lookup failures are not refusals", () => {
    const privateReason = refuseResolved("a.example.com", ["10.0.0.1"])
    expect(refuseResolved("a.example.com", [])).toBe(privateReason)
    for (const code of ["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA"])
      expect(
        refuseUnresolved("a.example.com", Object.assign(new Error(`getaddrinfo ${code} a.example.com`), { code })),
        code
      ).toBe(privateReason)
    for (const code of ["EAI_AGAIN", "ETIMEOUT", "ECONNREFUSED"])
      expect(
        refuseUnresolved("a.example.com", Object.assign(new Error("lookup failed"), { code })),
        code
      ).toBeUndefined()
    expect(refuseUnresolved("a.example.com", new Error("no code"))).toBeUndefined()
    expect(refuseUnresolved("a.example.com", "not an error")).toBeUndefined()
  })

  it("AddressRefusedError is recognised by its code", () => {
    expect(isAddressRefusedError(new AddressRefusedError("no"))).toBe(true)
    expect(isAddressRefusedError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe(false)
  })
})
