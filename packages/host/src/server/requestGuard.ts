/**
 * Limits on what a client may send, applied where the bytes arrive (node:http), before anything
 * buffers or parses them: the body size, the nesting depth of a JSON body, the header size and how
 * long a client may take. A body over a limit is cut off while it streams (its remaining bytes
 * are dropped, never kept); `refusalOf` tells the HTTP layer why, so the answer is the envelope.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"

export interface RequestLimits {
  readonly maxBodyBytes: number
  readonly maxJsonDepth: number
  /** node:http's own limit; larger headers (or URL) answer 431. */
  readonly maxHeaderBytes: number
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
}

/** No request body of the API nests more than a few levels; 64 leaves room and bounds the stack. */
export const MAX_JSON_DEPTH = 64
/** node:http's default, kept: a URL and headers of 16 KiB are far beyond any legitimate client. */
export const MAX_HEADER_BYTES = 16 * 1024

export const requestLimits = (config: {
  readonly maxBodyBytes: number
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
}): RequestLimits => ({
  maxBodyBytes: config.maxBodyBytes,
  maxJsonDepth: MAX_JSON_DEPTH,
  maxHeaderBytes: MAX_HEADER_BYTES,
  headersTimeoutMs: config.headersTimeoutMs,
  requestTimeoutMs: config.requestTimeoutMs
})

export type Refusal = "BODY_TOO_LARGE" | "BODY_TOO_DEEP"

const refusals = new WeakMap<object, Refusal>()

/** Why the guard cut the body of `source` (the node request) off, if it did. */
export const refusalOf = (source: unknown): Refusal | undefined =>
  typeof source === "object" && source !== null ? refusals.get(source) : undefined

/**
 * A refused request's connection ends with its answer: it says `Connection: close`, so the client
 * never sends another request on it. Left open for reuse, the linger's deadline below would drop
 * whatever later request was in flight on it (issue 24's fuzz drops: node:http stops handing a
 * cut-off body's bytes to the request once it is answered, so its real end went unseen).
 */
const LINGER_MS = 5_000
const closeAfterAnswer = (request: IncomingMessage, response: ServerResponse) => {
  response.setHeader("connection", "close")
  const socket = request.socket
  // node:http destroys a closing connection once the answer is written. The client may still be
  // sending, and a reset then would lose the answer in its socket; so the connection is
  // half-closed instead, what still arrives is dropped, and it is destroyed after LINGER_MS if
  // the client has not closed it by then.
  socket.destroySoon = () => {
    socket.end()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once("close", () => clearTimeout(timer))
  }
}

/** Tracks `{`/`[` nesting across chunks, outside strings; true once deeper than `max`. */
const depthTracker = (max: number) => {
  let depth = 0
  let inString = false
  let escaped = false
  return (chunk: Buffer): boolean => {
    for (const byte of chunk) {
      if (inString) {
        if (escaped) escaped = false
        else if (byte === 0x5c) escaped = true
        else if (byte === 0x22) inString = false
      } else if (byte === 0x22) inString = true
      else if (byte === 0x7b || byte === 0x5b) {
        if (++depth > max) return true
      } else if (byte === 0x7d || byte === 0x5d) depth--
    }
    return false
  }
}

/**
 * Counts the body as node:http hands it over (`push`) and ends it early at a limit: what a
 * handler reads is then cut short and refused, and later bytes are dropped.
 */
const guardBody = (request: IncomingMessage, response: ServerResponse, limits: RequestLimits) => {
  let bytes = 0
  const tooDeep = /json/i.test(request.headers["content-type"] ?? "") ? depthTracker(limits.maxJsonDepth) : undefined
  const push = request.push.bind(request)
  let state: "counting" | "refused" | "unread" = "counting"
  request.push = (chunk: unknown, encoding?: BufferEncoding) => {
    // The rest of a refused body, and its end: the stream has ended already.
    if (state === "refused") return true
    if (chunk === null || state === "unread") return push(chunk, encoding)
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), encoding)
    bytes += buffer.length
    const refusal: Refusal | undefined =
      bytes > limits.maxBodyBytes ? "BODY_TOO_LARGE" : tooDeep?.(buffer) === true ? "BODY_TOO_DEEP" : undefined
    if (refusal === undefined) return push(chunk, encoding)
    // Answered already without reading the body (a 401, a 404): node:http drops the rest itself.
    if (response.headersSent) {
      state = "unread"
      return push(chunk, encoding)
    }
    state = "refused"
    refusals.set(request, refusal)
    closeAfterAnswer(request, response)
    // Ended here as if complete: the reader's cleanup then leaves the connection alone (an
    // incomplete request's destruction would reset it before the refusal is answered).
    request.complete = true
    push(null)
    // node:http stops reading the socket when a push answers false, and only the body's reader
    // starts it again; this body has none left, and the rest must still be read (and dropped).
    request.socket.resume()
    return true
  }
}

const envelope = (status: number, code: string, message: string) =>
  JSON.stringify({ statusCode: status, message, code })

/** node:http answers these before a request exists; the default is an empty body. */
const onClientError = (error: Error & { code?: string }, socket: Duplex) => {
  if (!socket.writable) return socket.destroy()
  const [status, code, message, reason] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "HEADERS_TOO_LARGE", "the request line and headers must fit in 16 KiB", "Request Header Fields Too Large"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "REQUEST_TIMEOUT", "the request took too long to arrive", "Request Timeout"]
        : [400, "BAD_REQUEST", "malformed HTTP request", "Bad Request"]
  const body = envelope(status, code, message)
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void

/** What the headers alone refuse: a declared body over the limit, a content type no route reads. */
const refusedByHeaders = (request: IncomingMessage, limits: RequestLimits) => {
  if (Number(request.headers["content-length"] ?? 0) > limits.maxBodyBytes)
    return [413, "PAYLOAD_TOO_LARGE", `the request body must be at most ${limits.maxBodyBytes} bytes`] as const
  if (/^multipart\//i.test(request.headers["content-type"] ?? ""))
    return [415, "UNSUPPORTED_MEDIA_TYPE", "request bodies are JSON (Content-Type: application/json)"] as const
  return undefined
}

/**
 * Answers a refusal the headers decide at once, without reading the body (what still arrives is
 * dropped until the client stops or the linger ends).
 */
const answerAtOnce = (request: IncomingMessage, response: ServerResponse, limits: RequestLimits): boolean => {
  const refused = refusedByHeaders(request, limits)
  if (refused === undefined) return false
  const body = envelope(refused[0], refused[1], refused[2])
  closeAfterAnswer(request, response)
  response.writeHead(refused[0], { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
  request.resume()
  return true
}

/**
 * `createServer` for NodeHttpServer with the limits applied: request listeners (the platform's
 * handler) are wrapped so every request's body is guarded before the handler sees it.
 */
export const guardedServer = (limits: RequestLimits) => (): Server => {
  const server = createServer({
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // How often node:http looks for timed-out requests (default 30 s, which would let a slow
    // client stay that much longer than the timeouts say).
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs)
  })
  server.on("clientError", onClientError)
  const wrapped = new WeakMap<Listener, Listener>()
  const wrap = (listener: Listener): Listener => {
    const guarded =
      wrapped.get(listener) ??
      ((request: IncomingMessage, response: ServerResponse) => {
        if (answerAtOnce(request, response, limits)) return
        guardBody(request, response, limits)
        listener(request, response)
      })
    wrapped.set(listener, guarded)
    return guarded
  }
  // biome-ignore lint/suspicious/noExplicitAny: EventEmitter's own listener type
  type AnyListener = (...args: Array<any>) => void
  const on = server.on.bind(server) as (event: string, listener: AnyListener) => Server
  const off = server.off.bind(server) as (event: string, listener: AnyListener) => Server
  server.on = ((event: string, listener: AnyListener) =>
    on(event, event === "request" ? wrap(listener as Listener) : listener)) as Server["on"]
  server.off = ((event: string, listener: AnyListener) =>
    off(event, event === "request" ? (wrapped.get(listener as Listener) ?? listener) : listener)) as Server["off"]
  return server
}
