/**
 * The crash campaigns' receiver: on loopback, answers every delivery 200 and records its event id
 * as a request starting (headers in) and as acknowledged (body read, 200 sent).
 *
 * `latencyMs` holds each answer that long after the body is in. A receiver over a network with
 * work to do takes tens of milliseconds at least; an instant one on loopback is the least
 * realistic case for the "uncertain means sent" share, which compares the time a delivery spends
 * in flight with the sent mark's round trip (docs/reliability.md, "Uncertain means sent").
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly headers: IncomingHttpHeaders
}

export interface CrashReceiver {
  readonly url: string
  /** Acknowledged deliveries, in order. */
  readonly received: ReadonlyArray<Received>
  /** Event ids whose request reached the receiver (headers in), answered or not. */
  readonly started: ReadonlySet<string>
  readonly close: () => Promise<void>
}

/** The answer latency from `--receiver-ms N` or FRANK_CRASH_RECEIVER_MS, else `fallbackMs`. */
export const receiverLatencyMs = (fallbackMs: number): number => {
  const i = process.argv.indexOf("--receiver-ms")
  const raw = i >= 0 ? process.argv[i + 1] : process.env.FRANK_CRASH_RECEIVER_MS
  const ms = raw === undefined ? fallbackMs : Number(raw)
  if (!Number.isInteger(ms) || ms < 0 || ms > 10_000) throw new Error(`receiver latency must be 0..10000 ms: ${raw}`)
  return ms
}

export const startCrashReceiver = async (latencyMs: number): Promise<CrashReceiver> => {
  const received: Array<Received> = []
  const started = new Set<string>()
  const server = createServer((req, res) => {
    started.add(String(req.headers["x-service-event-id"]))
    req.resume()
    req.on("end", () => {
      const answer = () => {
        received.push({ headers: req.headers })
        res.writeHead(200).end("ok")
      }
      if (latencyMs === 0) answer()
      else setTimeout(answer, latencyMs)
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    started,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  }
}
