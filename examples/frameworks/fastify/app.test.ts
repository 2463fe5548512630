/**
 * The Fastify example in a real HTTP server on an ephemeral port, Frank handed the raw request
 * and response in a scope whose body parsing leaves the stream unread; the checks are mountSuite's.
 */
import { createFrank } from "@frank/host/embed"
import { mountSuites, overHttp, testSettings } from "../mountSuite.js"
import { createApp } from "./app.js"

mountSuites(
  "Fastify",
  async (db) => {
    const frank = await createFrank({ ...db, ...testSettings, publicBaseUrl: "http://localhost" })
    const app = await createApp(frank)
    const origin = await app.listen({ port: 0, host: "127.0.0.1" })
    return {
      frank,
      call: overHttp(origin),
      close: async () => {
        await app.close()
        await frank.close()
      }
    }
  },
  { ownHomePage: true }
)
