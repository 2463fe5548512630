/**
 * Starts the existing backend with Frank inside: the app's tables in `public` (its own small
 * schema.sql, run at start), Frank's in schema `frank` of the same database, the delivery worker
 * in this process.
 *
 *   DATABASE_URL=postgres://… node --conditions=@frank/source --import tsx examples/existing-backend/server.ts
 *   node --conditions=@frank/source --import tsx examples/existing-backend/server.ts   # embedded PGlite in ./.frank-example
 */
import { readFile } from "node:fs/promises"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { createFrank, type Frank, type FrankSettings } from "@frank/host/embed"
import pg from "pg"
import { createApp } from "./app.js"
import { type AppDatabase, embeddedDatabase, postgresDatabase } from "./appDatabase.js"

/** Where the app keeps its data: a PostgreSQL server, or embedded PGlite (and Frank's files) in a directory. */
export type Storage = { readonly databaseUrl: string } | { readonly embedded: string }

/** A running app. */
export interface RunningApp {
  /** Where it listens, e.g. `http://127.0.0.1:41234`. */
  readonly url: string
  readonly frank: Frank
  readonly db: AppDatabase
  /** Stops the server, Frank (its worker first) and the app's pool. */
  close(): Promise<void>
}

const appSchema = () => readFile(new URL("./schema.sql", import.meta.url), "utf8")

/** Starts the app on `port` (0: any free one); `settings` override Frank's defaults here. */
export const startApp = async (
  storage: Storage,
  options: { readonly port?: number; readonly settings?: Partial<FrankSettings> } = {}
): Promise<RunningApp> => {
  // Listen first: Frank's links (the cabinet's sign-in) are made of the app's public URL.
  let handle: (req: Parameters<Frank["node"]>[0], res: Parameters<Frank["node"]>[1]) => void = (_req, res) =>
    void res.writeHead(503).end()
  const server = createServer((req, res) => handle(req, res))
  await new Promise<void>((done) => server.listen(options.port ?? 0, "127.0.0.1", done))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const settings = {
    pepper: process.env.FRANK_PEPPER ?? "dev-only-pepper-change-me-0123456789",
    publicBaseUrl: url,
    basePath: "/partner-api",
    schema: "frank",
    ...options.settings
  }
  const pool = "databaseUrl" in storage ? new pg.Pool({ connectionString: storage.databaseUrl }) : undefined
  let frank: Frank
  let db: AppDatabase
  if (pool !== undefined) {
    await pool.query(await appSchema())
    frank = await createFrank({ ...settings, pool })
    db = postgresDatabase(pool, frank)
  } else {
    const dir = (storage as { embedded: string }).embedded
    frank = await createFrank({ ...settings, embedded: join(dir, "db"), dataDir: dir })
    const sql = await appSchema()
    await frank.transaction((tx) => tx.query(sql))
    db = embeddedDatabase(frank)
  }
  await frank.worker.start()
  const app = createApp(db, frank)
  handle = (req, res) => app(req, res)
  return {
    url,
    frank,
    db,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
      await frank.close()
      await pool?.end()
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const storage: Storage =
    process.env.DATABASE_URL === undefined ? { embedded: ".frank-example" } : { databaseUrl: process.env.DATABASE_URL }
  const running = await startApp(storage, { port: Number(process.env.PORT ?? 8092) })
  console.log(`the app on ${running.url}: POST /signup {email, password}, POST /credits {amountMinor}, GET /account`)
  process.once("SIGINT", () => void running.close())
}
