/**
 * The request guard's refusals and the connections they arrive on, against a real node:http server
 * with the host's guard and refusal handler. Regression for issue 24's dropped keep-alive sockets:
 * a body cut off while it streamed used to leave its connection open for reuse with a 5 s close
 * pending, which then dropped whatever later request the client was sending on it.
 */
import { Agent, request as httpRequest } from "node:http"
import { connect } from "node:net"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schedule, Scope, Stream } from "effect"
import { refuseCutOffBodies } from "../src/server/refusals.js"
import { guardedServer, requestLimits } from "../src/server/requestGuard.js"

const limits = requestLimits({ maxBodyBytes: 64 * 1024, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 })
/** How long the guard keeps reading a refused body before it closes the connection. */
const LINGER_MS = 5_000

const app = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/echo",
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (r) => r.json).pipe(
      Effect.map(() => HttpServerResponse.unsafeJson({ ok: true })),
      Effect.orElseSucceed(() =>
        HttpServerResponse.unsafeJson({ statusCode: 400, message: "bad", code: "BAD" }, { status: 400 })
      )
    )
  ),
  HttpRouter.get("/slow", Effect.as(Effect.sleep("300 millis"), HttpServerResponse.text("slow"))),
  // Answers without reading the request's body, its own body arriving over 600 ms.
  HttpRouter.post(
    "/unread",
    Effect.succeed(
      HttpServerResponse.stream(
        Stream.make("a", "b", "c").pipe(Stream.schedule(Schedule.spaced("300 millis")), Stream.encodeText)
      )
    )
  )
)

let port = 0
let scope: Scope.CloseableScope
beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  const served = HttpServer.serve(refuseCutOffBodies(limits)(app)).pipe(
    Layer.provideMerge(NodeHttpServer.layer(guardedServer(limits), { port: 0, host: "127.0.0.1" }))
  )
  const context = await Effect.runPromise(Layer.buildWithScope(served, scope))
  const address = (await Effect.runPromise(Effect.provide(HttpServer.HttpServer, context))).address
  port = address._tag === "TcpAddress" ? address.port : 0
})
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** JSON nested far deeper than the guard's 64 levels, well under the size limit. */
const deepJson = "[".repeat(48 * 1024)
const oversized = "a".repeat(4 * 64 * 1024)
const multipart = `--x\r\nContent-Disposition: form-data; name="file"\r\n\r\n${"a".repeat(32 * 1024)}\r\n--x--\r\n`

interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

const parseAnswer = (raw: string): Answer => {
  const [head = "", body = ""] = raw.split("\r\n\r\n", 2)
  const [statusLine = "", ...lines] = head.split("\r\n")
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()])
  )
  return { status: Number(statusLine.split(" ")[1]), headers, body }
}

/**
 * On a raw socket: sends the headers and the body's first `first` bytes, waits for the answer, then
 * sends the rest of the body. Resolves with the answer, whether the client saw a reset, and how long after
 * the answer the server closed the connection.
 */
const refusedOnRawSocket = (head: string, body: string, first: number, options: { readonly finish: boolean }) =>
  new Promise<{ answer: Answer; reset: boolean; closedAfterMs: number }>((resolve, reject) => {
    // Half-open allowed: the client goes on sending after the server has closed its side.
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true })
    let raw = ""
    let answeredAt = 0
    let reset = false
    socket.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "ECONNRESET" || e.code === "EPIPE") reset = true
      else reject(e)
    })
    socket.on("data", (d) => {
      raw += d
      if (answeredAt !== 0 || !raw.includes("\r\n\r\n")) return
      answeredAt = performance.now()
      if (options.finish) socket.write(body.slice(first), () => socket.end())
      else {
        // A client that never stops sending: 100 bytes every 100 ms.
        const drip = setInterval(() => socket.writable && socket.write(body.slice(first, first + 100)), 100)
        socket.once("close", () => clearInterval(drip))
      }
    })
    socket.on("close", () =>
      resolve({ answer: parseAnswer(raw), reset, closedAfterMs: performance.now() - answeredAt })
    )
    socket.write(`${head}\r\n\r\n${body.slice(0, first)}`)
  })

const post = (path: string, contentType: string, length: string) =>
  `POST ${path} HTTP/1.1\r\nHost: guard\r\nContent-Type: ${contentType}\r\n${length}`

describe("refused bodies close their connection after the answer", () => {
  const cases = [
    [
      "JSON nested too deep, cut off while it streams",
      post("/echo", "application/json", `Content-Length: ${deepJson.length}`),
      deepJson,
      1024,
      400,
      "VALIDATION_FAILED"
    ],
    [
      "a chunked body over the limit, cut off while it streams",
      post("/echo", "application/json", "Transfer-Encoding: chunked"),
      `${oversized.length.toString(16)}\r\n${oversized}\r\n0\r\n\r\n`,
      80 * 1024,
      413,
      "PAYLOAD_TOO_LARGE"
    ],
    [
      "a declared length over the limit, refused before the body",
      post("/echo", "application/json", `Content-Length: ${oversized.length}`),
      oversized,
      1024,
      413,
      "PAYLOAD_TOO_LARGE"
    ],
    [
      "a multipart body, refused before the body",
      post("/echo", "multipart/form-data; boundary=x", `Content-Length: ${multipart.length}`),
      multipart,
      1024,
      415,
      "UNSUPPORTED_MEDIA_TYPE"
    ]
  ] as const
  for (const [name, head, body, first, status, code] of cases)
    it(`${name}: ${status} with Connection: close, and the client finishes sending without a reset`, async () => {
      const { answer, reset, closedAfterMs } = await refusedOnRawSocket(head, body, first, { finish: true })
      expect(answer.status).toBe(status)
      expect(JSON.parse(answer.body)).toMatchObject({ statusCode: status, code })
      expect(answer.headers.connection).toBe("close")
      expect(reset).toBe(false)
      // Closed as soon as the client finished, not at the linger deadline.
      expect(closedAfterMs).toBeLessThan(LINGER_MS)
    })

  it("a client that keeps sending a refused body is cut off after the linger", async () => {
    const head = post("/echo", "application/json", `Content-Length: ${deepJson.length}`)
    const { answer, closedAfterMs } = await refusedOnRawSocket(head, deepJson, 1024, { finish: false })
    expect(answer.status).toBe(400)
    expect(closedAfterMs).toBeGreaterThanOrEqual(LINGER_MS - 100)
    expect(closedAfterMs).toBeLessThan(LINGER_MS + 3_000)
  }, 15_000)
})

describe("a body sent after its answer started", () => {
  it("is dropped, not refused: the answer ends as it began and the connection stays in use", async () => {
    const socket = connect(port, "127.0.0.1")
    let raw = ""
    const received = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => (raw.includes(text) ? resolve() : socket.once("data", check))
        check()
      })
    socket.on("data", (d) => {
      raw += d
    })
    socket.write(
      `POST /unread HTTP/1.1\r\nHost: guard\r\nContent-Type: application/json\r\nContent-Length: ${deepJson.length}\r\n\r\n`
    )
    await received("\r\n\r\n")
    // Deeper than the limit, but the answer's headers are out: too late to refuse it.
    socket.write(deepJson)
    await received("0\r\n\r\n")
    const answer = parseAnswer(raw)
    expect(answer.status).toBe(200)
    expect(answer.headers.connection).toBe("keep-alive")
    socket.write("GET /slow HTTP/1.1\r\nHost: guard\r\n\r\n")
    await received("slow")
    expect(raw).toMatch(/HTTP\/1\.1 200 OK[\s\S]*slow$/)
    socket.destroy()
  }, 10_000)
})

/** One request through `agent`; answers its status, or the error that dropped it. */
const viaAgent = (
  agent: Agent,
  method: string,
  path: string,
  body?: { readonly head: string; readonly rest: string }
) =>
  new Promise<number | string>((resolve) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path, agent })
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
    req.on("response", (res) => {
      // The rest of the body goes after the answer, as a client streaming a large body does.
      if (body !== undefined) req.end(body.rest)
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    if (body === undefined) req.end()
    else {
      req.setHeader("content-type", "application/json")
      req.setHeader("content-length", String(body.head.length + body.rest.length))
      req.write(body.head)
    }
  })

describe("a keep-alive client after a refused body", () => {
  it("loses no later request: none is dropped when the refused body's linger ends", async () => {
    // One socket, reused for everything it may be reused for.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const refused = await viaAgent(agent, "POST", "/echo", {
      head: deepJson.slice(0, 1024),
      rest: deepJson.slice(1024)
    })
    expect(refused).toBe(400)
    // Requests back to back across the linger's deadline, each 300 ms in flight.
    const answers: Array<number | string> = []
    const until = performance.now() + LINGER_MS + 1_500
    while (performance.now() < until) answers.push(await viaAgent(agent, "GET", "/slow"))
    agent.destroy()
    expect(answers.filter((a) => a !== 200)).toEqual([])
  }, 20_000)
})
