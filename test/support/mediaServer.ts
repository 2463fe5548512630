/**
 * A local HTTPS media server for import tests and the import benchmark: a self-signed certificate
 * made at start (selfsigned) for `localhost` and the stand-in public name `media.example.com`,
 * the committed fixture corpus, and a few behaviours a real source can have (redirects, errors,
 * slow answers, endless bodies with or without Content-Length). It records what it sent on each
 * response and whether the client hung up before the end, so tests can prove an early abort.
 */
import { createReadStream, readFileSync, statSync } from "node:fs"
import { createServer, type Server } from "node:https"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { join, resolve } from "node:path"
import { generate } from "selfsigned"

export const FIXTURES = resolve(import.meta.dirname, "../fixtures/media")

export const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name))

export interface SentBody {
  readonly path: string
  /** Bytes handed to the socket so far. */
  sent: number
  readonly total: number
  /** The connection closed before the whole body was written. */
  closedEarly: boolean
  finished: boolean
  /** Resolves when the response is over, either way. */
  readonly done: Promise<void>
}

export interface MediaServer {
  readonly port: number
  /** `https://localhost:PORT` */
  readonly baseUrl: string
  /** The certificate (PEM): trust it as a CA to verify the server. */
  readonly ca: string
  readonly bodies: Array<SentBody>
  /** Requests per path (query included). */
  readonly hits: Map<string, number>
  /** TCP connections accepted. */
  readonly connections: () => number
  /** The most requests in flight at once. */
  readonly maxInFlight: () => number
  readonly resetMaxInFlight: () => void
  readonly close: () => Promise<void>
}

const MIB = 1024 * 1024

/** Writes `total` bytes (first `prefix`, then zeros) honouring backpressure; stops when the client leaves. */
const streamBody = (res: ServerResponse, body: SentBody, prefix: Buffer) => {
  const chunk = Buffer.alloc(256 * 1024)
  let closed = false
  res.on("close", () => {
    closed = true
    if (!body.finished) body.closedEarly = true
  })
  const pump = () => {
    while (!closed && body.sent < body.total) {
      let piece: Buffer
      if (body.sent < prefix.length)
        piece = prefix.subarray(body.sent, Math.min(prefix.length, body.sent + chunk.length))
      else piece = chunk.subarray(0, Math.min(chunk.length, body.total - body.sent))
      body.sent += piece.length
      if (!res.write(piece)) return void res.once("drain", pump)
    }
    if (!closed && body.sent >= body.total) {
      body.finished = true
      res.end()
    }
  }
  pump()
}

export interface MediaServerOptions {
  /** More files to serve, by name, at `/extra/<name>` (absolute paths). */
  readonly extra?: Readonly<Record<string, string>>
}

export const startMediaServer = async (options: MediaServerOptions = {}): Promise<MediaServer> => {
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [
      { name: "basicConstraints", cA: true },
      { name: "keyUsage", digitalSignature: true, keyCertSign: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 2, value: "media.example.com" },
          { type: 7, ip: "127.0.0.1" }
        ]
      }
    ]
  })
  const bodies: Array<SentBody> = []
  const hits = new Map<string, number>()
  const sockets = new Set<Socket>()
  let connections = 0
  let inFlight = 0
  let maxInFlight = 0

  const track = (res: ServerResponse, path: string, total: number): SentBody => {
    let resolveDone!: () => void
    const body: SentBody = {
      path,
      sent: 0,
      total,
      closedEarly: false,
      finished: false,
      done: new Promise((r) => (resolveDone = r))
    }
    res.on("close", () => resolveDone())
    bodies.push(body)
    return body
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "https://localhost")
    hits.set(url.pathname + url.search, (hits.get(url.pathname + url.search) ?? 0) + 1)
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    res.on("close", () => inFlight--)
    const q = url.searchParams
    const parts = url.pathname.split("/").filter(Boolean)

    // /fixtures/<name>[?type=<content-type>&delay=<ms>]: a corpus file with Content-Length.
    // /extra/<name>: one of options.extra, the same way.
    const extra = parts[0] === "extra" && parts[1] !== undefined ? options.extra?.[parts[1]] : undefined
    if ((parts[0] === "fixtures" && parts[1] !== undefined) || extra !== undefined) {
      const path = extra ?? join(FIXTURES, parts[1] ?? "")
      let size: number
      try {
        size = statSync(path).size
      } catch {
        res.writeHead(404).end()
        return
      }
      const send = () => {
        res.writeHead(200, {
          "content-type": q.get("type") ?? "application/octet-stream",
          "content-length": String(size)
        })
        createReadStream(path).pipe(res)
      }
      const delay = Number(q.get("delay") ?? 0)
      if (delay > 0) setTimeout(send, delay)
      else send()
      return
    }
    // /generated/<name>?mib=<n>[&bytes=<n>][&cl=0]: the fixture's bytes, then zeros up to the size.
    if (parts[0] === "generated" && parts[1] !== undefined) {
      const total = q.has("bytes") ? Number(q.get("bytes")) : Number(q.get("mib") ?? 1) * MIB
      const headers: Record<string, string> = { "content-type": "application/octet-stream" }
      if (q.get("cl") !== "0") headers["content-length"] = String(total)
      res.writeHead(200, headers)
      streamBody(res, track(res, url.pathname + url.search, total), fixture(parts[1]))
      return
    }
    // /redirect?to=<url>[&status=302]
    if (parts[0] === "redirect") {
      res.writeHead(Number(q.get("status") ?? 302), { location: q.get("to") ?? "/" }).end()
      return
    }
    // /chain/<n>: n redirects, then image.png.
    if (parts[0] === "chain") {
      const n = Number(parts[1] ?? 0)
      res.writeHead(302, { location: n <= 1 ? "/fixtures/image.png" : `/chain/${n - 1}` }).end()
      return
    }
    // /status/<code>
    if (parts[0] === "status") {
      res.writeHead(Number(parts[1] ?? 500), { "content-type": "text/plain" }).end("nope")
      return
    }
    res.writeHead(404).end()
  }

  const server: Server = createServer({ key: pems.private, cert: pems.cert }, handle)
  server.on("connection", (socket: Socket) => {
    connections++
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  server.on("tlsClientError", () => {})
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    port,
    baseUrl: `https://localhost:${port}`,
    ca: pems.cert,
    bodies,
    hits,
    connections: () => connections,
    maxInFlight: () => maxInFlight,
    resetMaxInFlight: () => {
      maxInFlight = inFlight
    },
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy()
        server.close(() => done())
      })
  }
}
