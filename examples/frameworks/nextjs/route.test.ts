/**
 * The Next.js example's route handlers called as Next calls them: the exported GET/POST/… with
 * real NextRequest objects (next/server), the singleton opening Frank from the environment. No
 * `next build` or `next dev` (too heavy for CI; docs/decisions.md): what is not covered is Next's
 * own routing of /frank/… to the catch-all and its bundling, both configuration.
 */
import { NextRequest } from "next/server.js"
import { afterAll } from "vitest"
import { type Call, mountSuites, type TestDatabase, testSettings } from "../mountSuite.js"
import * as billing from "./app/account/billing/route.js"
import * as frankRoute from "./app/frank/[...path]/route.js"
import { closeFrank, getFrank } from "./lib/frank.js"

const ENV = ["DATABASE_URL", "FRANK_DB_SCHEMA", "FRANK_DATA_DIR", "FRANK_PEPPER", "FRANK_PUBLIC_BASE_URL"] as const
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]))
afterAll(() => {
  for (const name of ENV)
    if (saved[name] === undefined) delete process.env[name]
    else process.env[name] = saved[name]
})

/** The example's configuration for `db`, as its deployment would set it. */
const configure = (db: TestDatabase) => {
  for (const name of ENV) delete process.env[name]
  if ("embedded" in db) process.env.FRANK_DATA_DIR = db.embedded
  else {
    process.env.DATABASE_URL = db.databaseUrl
    process.env.FRANK_DB_SCHEMA = db.schema
  }
  process.env.FRANK_PEPPER = testSettings.pepper
  process.env.FRANK_PUBLIC_BASE_URL = "http://localhost:3000"
}

type Handler = (request: NextRequest) => Promise<Response>

/** What Next's router does for this app: /frank/… to the catch-all's method export, the login route. */
const route = (path: string, method: string): Handler => {
  if (path.startsWith("/account/billing")) return billing.GET
  const handlers: Record<string, Handler> = {
    GET: frankRoute.GET,
    POST: frankRoute.POST,
    PUT: frankRoute.PUT,
    PATCH: frankRoute.PATCH,
    DELETE: frankRoute.DELETE
  }
  const handler = path.startsWith("/frank/") ? handlers[method] : undefined
  if (handler === undefined) throw new Error(`no route for ${method} ${path}`)
  return handler
}

const call: Call = (path, init) => {
  const method = init?.method ?? "GET"
  return route(path, method)(new NextRequest(`http://localhost:3000${path}`, { ...init, method } as never))
}

mountSuites(
  "Next.js route handlers",
  async (db) => {
    configure(db)
    return { frank: await getFrank(), call, close: closeFrank }
  },
  { ownHomePage: false }
)
