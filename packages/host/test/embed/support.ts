/**
 * Databases for the embed tests: a fresh schema on the PostgreSQL of DATABASE_URL (dropped after),
 * reached through a URL or a `pg` Pool whose connections have it as their search_path.
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { TestDatabase } from "@frank/adapters"
import pg from "pg"

export const DATABASE_URL = process.env.DATABASE_URL

/** A new schema; `url` and `pool()` use it; `drop()` removes it and everything in it. */
export const freshSchema = async (url: string) => {
  const schema = `embed_${randomUUID().replaceAll("-", "")}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const scopedUrl = TestDatabase.withSearchPath(url, schema)
  const pools: Array<pg.Pool> = []
  return {
    schema,
    url: scopedUrl,
    pool: (max = 5) => {
      const p = new pg.Pool({ connectionString: scopedUrl, max })
      pools.push(p)
      return p
    },
    drop: async () => {
      await Promise.all(pools.map((p) => p.end()))
      const c = new pg.Client({ connectionString: url })
      await c.connect()
      await c.query(`DROP SCHEMA ${schema} CASCADE`)
      await c.end()
    }
  }
}

/** One request a receiver got, and when (Date.now()). */
export interface Received {
  readonly at: number
  readonly path: string
  readonly body: string
  readonly headers: IncomingMessage["headers"]
}

/** A webhook receiver on 127.0.0.1 answering 200; `received` fills as deliveries arrive. */
export const startReceiver = async () => {
  const received: Array<Received> = []
  const waiters: Array<() => void> = []
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => {
      body += c
    })
    req.on("end", () => {
      received.push({ at: Date.now(), path: req.url ?? "/", body, headers: req.headers })
      res.writeHead(200).end("ok")
      for (const w of waiters.splice(0)) w()
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return {
    url,
    received,
    /** Resolves when `n` requests have arrived, or rejects after `ms`. */
    waitFor: (n: number, ms: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${received.length} of ${n} deliveries within ${ms} ms`)), ms)
        const check = () => {
          if (received.length >= n) {
            clearTimeout(timer)
            resolve()
          } else waiters.push(check)
        }
        check()
      }),
    close: () => new Promise<void>((done) => server.close(() => done()))
  }
}
