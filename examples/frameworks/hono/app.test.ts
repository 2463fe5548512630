/**
 * The Hono example served by @hono/node-server on an ephemeral port, Frank answering Hono's raw
 * Request through `frank.fetch`; the checks are mountSuite's.
 */
import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
import { createFrank } from "@frank/host/embed"
import { mountSuites, overHttp, testSettings } from "../mountSuite.js"
import { createApp } from "./app.js"

mountSuites(
  "Hono",
  async (db) => {
    const frank = await createFrank({ ...db, ...testSettings, publicBaseUrl: "http://localhost" })
    const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>((listening) => {
      const s = serve({ fetch: createApp(frank).fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
        listening({ server: s, port: info.port })
      )
    })
    return {
      frank,
      call: overHttp(`http://127.0.0.1:${port}`),
      close: async () => {
        await new Promise((closed) => server.close(closed))
        await frank.close()
      }
    }
  },
  { ownHomePage: true }
)
