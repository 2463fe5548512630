/**
 * One Frank per server process for the route handlers: created on first use, kept on
 * `globalThis` so that Next's dev-mode module reloads reuse it instead of opening the database
 * again. The PostgreSQL of DATABASE_URL (schema FRANK_DB_SCHEMA, default `frank`), else embedded
 * PGlite in FRANK_DATA_DIR.
 */
import { createFrank, type Frank } from "@frank/host/embed"

const KEY = Symbol.for("frank.examples.nextjs")
const held = globalThis as { [KEY]?: Promise<Frank> }

const start = async (): Promise<Frank> => {
  const url = process.env.DATABASE_URL
  const frank = await createFrank({
    ...(url === undefined || url === ""
      ? { embedded: process.env.FRANK_DATA_DIR ?? ".frank/nextjs" }
      : { databaseUrl: url }),
    schema: process.env.FRANK_DB_SCHEMA || undefined,
    // A development pepper: set FRANK_PEPPER (a long random secret, kept) for anything real.
    pepper: process.env.FRANK_PEPPER ?? "example-pepper-change-me-0123456789",
    publicBaseUrl: process.env.FRANK_PUBLIC_BASE_URL ?? "http://localhost:3000",
    // Where app/frank/[...path]/route.ts catches requests.
    basePath: "/frank"
  })
  await frank.worker.start()
  return frank
}

/** The process's Frank; a failed start is forgotten, so the next request tries again. */
export const getFrank = (): Promise<Frank> => {
  held[KEY] ??= start().catch((error: unknown) => {
    delete held[KEY]
    throw error
  })
  return held[KEY]
}

/** Closes the process's Frank (tests, or your shutdown hook); the next `getFrank` opens a new one. */
export const closeFrank = async (): Promise<void> => {
  const frank = held[KEY]
  delete held[KEY]
  if (frank !== undefined) await (await frank).close()
}
