/**
 * The Hono example as a program on Node (@hono/node-server): Frank on DATABASE_URL or embedded
 * PGlite, its webhook worker in this process, the app on PORT (default 3000). On Bun or Deno,
 * serve `app.fetch` the same way.
 */
import { serve } from "@hono/node-server"
import { frankFromEnv, printDemo } from "../frankFromEnv.js"
import { createApp } from "./app.js"

const port = Number(process.env.PORT ?? 3000)
const publicBaseUrl = `http://localhost:${port}`
const frank = await frankFromEnv(publicBaseUrl, ".frank/hono")
await frank.worker.start()
const server = serve({ fetch: createApp(frank).fetch, port }, () => void printDemo(frank, publicBaseUrl))
const shutdown = () => server.close(() => void frank.close().then(() => process.exit(0)))
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)
