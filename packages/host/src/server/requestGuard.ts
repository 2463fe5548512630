/**
 * Limits on what a client may send, applied where the bytes arrive (node:http), before anything
 * buffers or parses them: the body size, the nesting depth and value count of a JSON body, the header size and how
 * long a client may take. A body over a limit is cut off while it streams (its remaining bytes
 * are dropped, never kept); `refusalOf` tells the HTTP layer why, so the answer is the envelope.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { carriesBody, UNSUPPORTED_MEDIA_TYPE, unsupportedMediaTypeMessage } from "@frank/core/http"
import { wrapRequestListeners } from "./requestListeners.js"

export interface RequestLimits {
  readonly maxBodyBytes: number
  readonly maxJsonDepth: number
  readonly maxJsonValues: number
  /** node:http's own limit; larger headers (or URL) answer 431. */
  readonly maxHeaderBytes: number
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
}

/** No request body of the API nests more than a few levels; 64 leaves room and bounds the stack. */
export const MAX_JSON_DEPTH = 64
/**
 * The largest request body of the API holds a few hundred values (80 task inputs of two fields);
 * 10,000 leaves room and bounds what decoding and error reports cost.
 */
export const MAX_JSON_VALUES = 10_000
/** node:http's default, kept: a URL and headers of 16 KiB are far beyond any legitimate client. */
export const MAX_HEADER_BYTES = 16 * 1024

export const requestLimits = (config: {
  readonly maxBodyBytes: number
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
}): RequestLimits => ({
  maxBodyBytes: config.maxBodyBytes,
  maxJsonDepth: MAX_JSON_DEPTH,
  maxJsonValues: MAX_JSON_VALUES,
  maxHeaderBytes: MAX_HEADER_BYTES,
  headersTimeoutMs: config.headersTimeoutMs,
  requestTimeoutMs: config.requestTimeoutMs
})

export type Refusal = "BODY_TOO_LARGE" | "BODY_TOO_DEEP" | "BODY_TOO_WIDE"

const refusals = new WeakMap<object, Refusal>()

/** Why the guard cut the body of `source` (the node request) off, if it did. */
export const refusalOf = (source: unknown): Refusal | undefined =>
  typeof source === "object" && source !== null ? refusals.get(source) : undefined

/** The answer to a refused body: status, code and message (one or a list) of the envelope. */
export const refusalAnswer = (
  refusal: Refusal,
  limits: RequestLimits
): readonly [status: number, code: string, message: string | ReadonlyArray<string>] =>
  refusal === "BODY_TOO_LARGE"
    ? [413, "PAYLOAD_TOO_LARGE", `the request body must be at most ${limits.maxBodyBytes} bytes`]
    : refusal === "BODY_TOO_DEEP"
      ? [400, "VALIDATION_FAILED", [`body: nested deeper than ${limits.maxJsonDepth} levels`]]
      : [400, "VALIDATION_FAILED", [`body: holds more than ${limits.maxJsonValues} values`]]

/**
 * The refusal of the request a connection is on, and its answer, from the moment the guard
 * refused it. node:http's request timeout keeps counting while a refused body still arrives, and
 * it must not answer 408 for a request already refused (onClientError).
 */
const refusedOn = new WeakMap<Duplex, { readonly refusal: Refusal; readonly response: ServerResponse }>()

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

/**
 * Tracks a JSON body across chunks, outside strings: `{`/`[` nesting, refused once deeper than
 * `maxDepth`, and values (containers and `,`-separated entries), refused once more than
 * `maxValues`. Decoding and reporting on a body costs per value, so the count bounds that cost
 * before the body is even parsed (issue 31).
 */
const shapeTracker = (maxDepth: number, maxValues: number) => {
  let depth = 0
  let values = 0
  let inString = false
  let escaped = false
  return (chunk: Buffer): Refusal | undefined => {
    for (const byte of chunk) {
      if (inString) {
        if (escaped) escaped = false
        else if (byte === 0x5c) escaped = true
        else if (byte === 0x22) inString = false
      } else if (byte === 0x22) inString = true
      else if (byte === 0x7b || byte === 0x5b) {
        if (++depth > maxDepth) return "BODY_TOO_DEEP"
        if (++values > maxValues) return "BODY_TOO_WIDE"
      } else if (byte === 0x7d || byte === 0x5d) depth--
      else if (byte === 0x2c && ++values > maxValues) return "BODY_TOO_WIDE"
    }
    return undefined
  }
}

/**
 * Counts the body as node:http hands it over (`push`) and ends it early at a limit: what a
 * handler reads is then cut short and refused, and later bytes are dropped.
 */
const guardBody = (request: IncomingMessage, response: ServerResponse, limits: RequestLimits) => {
  let bytes = 0
  const shapeRefusal = /json/i.test(request.headers["content-type"] ?? "")
    ? shapeTracker(limits.maxJsonDepth, limits.maxJsonValues)
    : undefined
  const push = request.push.bind(request)
  let state: "counting" | "refused" | "unread" = "counting"
  request.push = (chunk: unknown, encoding?: BufferEncoding) => {
    // The rest of a refused body, and its end: the stream has ended already.
    if (state === "refused") return true
    if (chunk === null || state === "unread") return push(chunk, encoding)
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), encoding)
    bytes += buffer.length
    const refusal: Refusal | undefined = bytes > limits.maxBodyBytes ? "BODY_TOO_LARGE" : shapeRefusal?.(buffer)
    if (refusal === undefined) return push(chunk, encoding)
    // Answered already without reading the body (a 401, a 404): node:http drops the rest itself.
    if (response.headersSent) {
      state = "unread"
      return push(chunk, encoding)
    }
    state = "refused"
    refusals.set(request, refusal)
    refusedOn.set(request.socket, { refusal, response })
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

const envelope = (status: number, code: string, message: string | ReadonlyArray<string>) =>
  JSON.stringify({ statusCode: status, message, code })

const reasons: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large"
}

/** The CORS fields `first` set on a refused request's answer, as header lines of a raw answer. */
const corsLines = (response: ServerResponse | undefined): string => {
  if (response === undefined) return ""
  let lines = ""
  for (const name of ["access-control-allow-origin", "access-control-expose-headers", "vary"]) {
    const value = response.getHeader(name)
    if (typeof value === "string") lines += `${name}: ${value}\r\n`
  }
  return lines
}

/**
 * node:http answers these before a request exists or, for the request timeout, while one still
 * arrives; the default is an empty body. A request the guard refused keeps its refusal: the
 * timeout counts until the refused body's last byte, which may come after the deadline, and the
 * refusal's answer may not be out yet (the handler answers it once done); so the refusal is
 * answered here (413, not 408), or, if already answered, left to its linger.
 */
const onClientError = (limits: RequestLimits) => (error: Error & { code?: string }, socket: Duplex) => {
  const refused = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? refusedOn.get(socket) : undefined
  if (refused?.response.headersSent === true) return
  if (!socket.writable) return socket.destroy()
  const [status, code, message] =
    refused !== undefined
      ? refusalAnswer(refused.refusal, limits)
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, "HEADERS_TOO_LARGE", "the request line and headers must fit in 16 KiB"]
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [408, "REQUEST_TIMEOUT", "the request took too long to arrive"]
          : [400, "BAD_REQUEST", "malformed HTTP request"]
  const body = envelope(status, code, message)
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${corsLines(refused?.response)}Connection: close\r\n\r\n${body}`
  )
  // Half-closed, as a refusal's connection: a client still sending is cut off after the linger.
  const timer = setTimeout(() => socket.destroy(), LINGER_MS)
  timer.unref()
  socket.once("close", () => clearTimeout(timer))
}

/** Whether a request's body is of a type its route does not read (decided from its headers). */
export type UnreadableBody = (request: IncomingMessage) => boolean

/**
 * What the headers alone refuse: a declared body over the limit, a multipart body (no route reads
 * one) or a body its route does not read.
 */
const refusedByHeaders = (request: IncomingMessage, limits: RequestLimits, unreadable: UnreadableBody) => {
  if (Number(request.headers["content-length"] ?? 0) > limits.maxBodyBytes)
    return [413, "PAYLOAD_TOO_LARGE", `the request body must be at most ${limits.maxBodyBytes} bytes`] as const
  const multipart = carriesBody(request.headers) && /^multipart\//i.test(request.headers["content-type"] ?? "")
  if (multipart || unreadable(request)) return [415, UNSUPPORTED_MEDIA_TYPE, unsupportedMediaTypeMessage] as const
  return undefined
}

/**
 * Answers a refusal the headers decide at once, without reading the body (what still arrives is
 * dropped until the client stops or the linger ends).
 */
const answerAtOnce = (
  request: IncomingMessage,
  response: ServerResponse,
  limits: RequestLimits,
  unreadable: UnreadableBody
): boolean => {
  const refused = refusedByHeaders(request, limits, unreadable)
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
 * handler) are wrapped so every request's body is guarded before the handler sees it, and a body
 * of a type its route does not read (`unreadable`) is refused unread. `first` runs on every
 * request before anything answers it (the host's early CORS fields).
 */
export const guardedServer =
  (
    limits: RequestLimits,
    unreadable: UnreadableBody = () => false,
    first?: (request: IncomingMessage, response: ServerResponse) => void
  ) =>
  (): Server => {
    const server = createServer({
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often node:http looks for timed-out requests (default 30 s, which would let a slow
      // client stay that much longer than the timeouts say).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs)
    })
    server.on("clientError", onClientError(limits))
    return wrapRequestListeners(server, (listener) => (request, response) => {
      first?.(request, response)
      if (answerAtOnce(request, response, limits, unreadable)) return
      guardBody(request, response, limits)
      listener(request, response)
    })
  }
