/**
 * The webhook receiver of bench/sustained: a node:http server in the bench process answering 200
 * at once, noting when each event first arrived. An event is found by the id its emitting
 * request answered: `webhook.test` answers its eventId, a top-up confirmation the ledger entry's
 * transactionId, which the event carries in `data.transactionId`. `answerAfter` makes it answer
 * late (the arrival is still noted at once): the drain-only phase uses it to keep the worker's
 * in-flight slots busy while a queue builds up (drain.ts).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface Receiver {
  readonly url: string
  /** First arrival (performance.now()) by eventId and by data.transactionId. */
  readonly arrivals: Map<string, number>
  /** Requests answered so far (repeats included). */
  readonly count: () => number
  /** Answers from now on `ms` after each request's arrival (0: at once). */
  readonly answerAfter: (ms: number) => void
  /** Requests arrived and not yet answered. */
  readonly held: () => number
  readonly close: () => Promise<void>
}

export const startReceiver = (): Promise<Receiver> =>
  new Promise((done) => {
    const arrivals = new Map<string, number>()
    let count = 0
    let delayMs = 0
    let held = 0
    const note = (key: unknown, at: number) => {
      if (typeof key === "string" && !arrivals.has(key)) arrivals.set(key, at)
    }
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const at = performance.now()
        count++
        if (delayMs === 0) res.writeHead(200).end()
        else {
          held++
          setTimeout(() => {
            held--
            res.writeHead(200).end()
          }, delayMs)
        }
        try {
          const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
            eventId?: unknown
            data?: { transactionId?: unknown }
          }
          note(event.eventId, at)
          note(event.data?.transactionId, at)
        } catch {
          // Not an event of ours: counted, not matched.
        }
      })
    })
    server.keepAliveTimeout = 60_000
    server.listen(0, "127.0.0.1", () =>
      done({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        arrivals,
        count: () => count,
        answerAfter: (ms) => {
          delayMs = ms
        },
        held: () => held,
        close: () => new Promise((r) => server.close(() => r()))
      })
    )
  })
