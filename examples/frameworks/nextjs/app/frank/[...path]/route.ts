/**
 * Frank's partner API and cabinet in a Next.js App Router app: this catch-all route hands every
 * request under /frank to `frank.fetch` (route handlers take and give Fetch API objects).
 *
 *   npm run build && npx next dev examples/frameworks/nextjs     # then http://localhost:3000/frank/v1/…
 *
 * Next resolves `@frank/host` to its built `dist/` (run `npm run build` first). Its test
 * (route.test.ts) calls these exported handlers with real NextRequest objects instead of running
 * `next build` or `next dev`, which are too heavy for CI (docs/decisions.md).
 */
import type { NextRequest } from "next/server.js"
import { getFrank } from "../../../lib/frank.js"

// PGlite, pg and node:crypto: Frank needs Node, not the Edge runtime; and nothing here is static.
export const runtime = "nodejs"
export const dynamic = "force-dynamic"

const handle = async (request: NextRequest): Promise<Response> => (await getFrank()).fetch(request)

export { handle as DELETE, handle as GET, handle as PATCH, handle as POST, handle as PUT }
