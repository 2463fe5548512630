/**
 * A receiver on loopback that verifies every delivery with the `standardwebhooks` package (the
 * specification's library, not Frank's code) before answering: 204 when a secret it holds
 * verifies the request, 401 otherwise, so the host's delivery log shows what the library decided.
 *
 * The library checks its 5-minute window against Date.now(); the host runs on its sandbox clock,
 * which tests move on by hours. The receiver verifies at the host's time: real time plus the
 * offset the test last read (`followHost`).
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { libraryVerdict } from "../support/standardLibraries.js"
import { hostNow } from "./hostClient.js"
import type { RunningHost } from "./spawnHost.js"

export interface VerifiedRequest {
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
  /** The host-time instant it was checked at, epoch ms. */
  readonly at: number
  /** The library's verdict per secret the receiver held: "ok" or its refusal. */
  readonly verdicts: ReadonlyArray<string>
  readonly status: 204 | 401
}

export interface StandardReceiver {
  readonly url: string
  readonly received: ReadonlyArray<VerifiedRequest>
  /** The secrets the receiver accepts from now on (a receiver mid-rotation holds two). */
  hold: (secrets: ReadonlyArray<string>) => void
  /** Reads the host's clock, so verification runs at the host's time. */
  followHost: () => Promise<void>
  close: () => Promise<void>
}

/** Wall-clock time that Date mocking cannot reach. */
const realNow = () => performance.timeOrigin + performance.now()

export const startStandardReceiver = async (host: RunningHost, secrets: ReadonlyArray<string>) => {
  const received: Array<VerifiedRequest> = []
  let held = secrets
  let offsetMs = 0
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const at = realNow() + offsetMs
      const verdicts = held.map((secret) =>
        libraryVerdict("standardwebhooks", secret, { headers: req.headers, body }, at)
      )
      const status = verdicts.includes("ok") ? 204 : 401
      received.push({ headers: req.headers, body, at, verdicts, status })
      res.writeHead(status).end()
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const receiver: StandardReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/standard-hook`,
    received,
    hold: (next) => {
      held = next
    },
    followHost: async () => {
      offsetMs = (await hostNow(host)) - realNow()
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  }
  await receiver.followHost()
  return receiver
}
