/**
 * The Express example as a program: Frank on DATABASE_URL or embedded PGlite, its webhook worker
 * in this process, the app on PORT (default 3000).
 */
import { BASE_PATH, frankFromEnv, printDemo } from "../frankFromEnv.js"
import { createApp } from "./app.js"

const port = Number(process.env.PORT ?? 3000)
const publicBaseUrl = `http://localhost:${port}`
const frank = await frankFromEnv(publicBaseUrl, ".frank/express")
await frank.worker.start()
const server = createApp(frank).listen(port, () => {
  void printDemo(frank, publicBaseUrl)
  console.log(`Frank is mounted at ${BASE_PATH}`)
})
const shutdown = () => server.close(() => void frank.close().then(() => process.exit(0)))
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)
