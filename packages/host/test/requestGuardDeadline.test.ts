/**
 * A body over the limit is answered 413 even when node:http's request timeout comes first
 * (issue 31's fuzz: one 64 MiB body got 408 under load). The guard refuses a body as it streams
 * and the handler answers the refusal once it is done; node:http's timeout keeps counting until
 * the refused body's last byte and used to answer 408 in between. Here the handler takes longer
 * than the request timeout and the client never finishes its chunked body, so the timeout always
 * fires after the refusal and before the handler's answer.
 */
import { connect } from "node:net"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { refuseCutOffBodies } from "../src/server/refusals.js"
import { guardedServer, requestLimits } from "../src/server/requestGuard.js"

const REQUEST_TIMEOUT_MS = 1_000
const limits = requestLimits({ maxBodyBytes: 8 * 1024, headersTimeoutMs: 1_000, requestTimeoutMs: REQUEST_TIMEOUT_MS })

// Reads the body only after twice the request timeout, as a handler held up by its queries would.
const app = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/late",
    Effect.zipRight(
      Effect.sleep(2 * REQUEST_TIMEOUT_MS + 500),
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (r) => r.json).pipe(
        Effect.map(() => HttpServerResponse.unsafeJson({ ok: true })),
        Effect.orElseSucceed(() =>
          HttpServerResponse.unsafeJson({ statusCode: 400, message: "bad", code: "BAD" }, { status: 400 })
        )
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

/** Sends headers and `body` as one chunk of a chunked body that never ends; resolves with what came back. */
const unfinishedChunkedBody = (headers: string, body: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let raw = ""
    socket.on("data", (d: Buffer) => {
      raw += d.toString("latin1")
    })
    socket.on("error", reject)
    socket.on("close", () => resolve(raw))
    socket.write(
      `POST /late HTTP/1.1\r\nHost: x\r\n${headers}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n`
    )
  })

describe("a refused body and node:http's request timeout", () => {
  it("a body over the limit is answered 413, not 408, when the timeout comes before the handler's answer", async () => {
    const raw = await unfinishedChunkedBody("Content-Type: application/json\r\n", `"${"a".repeat(32 * 1024)}"`)
    expect(raw.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large")
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({
      statusCode: 413,
      message: `the request body must be at most ${8 * 1024} bytes`,
      code: "PAYLOAD_TOO_LARGE"
    })
  }, 15_000)

  it("a JSON body nested too deep is answered with its 400, not 408", async () => {
    const raw = await unfinishedChunkedBody("Content-Type: application/json\r\n", "[".repeat(1024))
    expect(raw.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request")
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)).code).toBe("VALIDATION_FAILED")
  }, 15_000)

  it("a body under the limit still arriving at the deadline is answered 408", async () => {
    const raw = await unfinishedChunkedBody("Content-Type: application/json\r\n", '{"a":')
    expect(raw.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout")
  }, 15_000)
})
