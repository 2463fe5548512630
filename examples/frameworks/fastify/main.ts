/**
 * The Fastify example as a program: Frank on DATABASE_URL or embedded PGlite, its webhook worker
 * in this process, the app on PORT (default 3000).
 */
import { frankFromEnv, printDemo } from "../frankFromEnv.js"
import { createApp } from "./app.js"

const port = Number(process.env.PORT ?? 3000)
const publicBaseUrl = `http://localhost:${port}`
const frank = await frankFromEnv(publicBaseUrl, ".frank/fastify")
await frank.worker.start()
const app = await createApp(frank)
app.addHook("onClose", () => frank.close())
await app.listen({ port, host: "127.0.0.1" })
await printDemo(frank, publicBaseUrl)
const shutdown = () => void app.close().then(() => process.exit(0))
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)
