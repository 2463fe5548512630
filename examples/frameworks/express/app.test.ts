/**
 * The Express example in a real HTTP server on an ephemeral port, Frank mounted with its Node
 * mount before express.json(); the checks are mountSuite's.
 */
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createFrank } from "@frank/host/embed"
import { mountSuites, overHttp, testSettings } from "../mountSuite.js"
import { createApp } from "./app.js"

mountSuites(
  "Express",
  async (db) => {
    const frank = await createFrank({ ...db, ...testSettings, publicBaseUrl: "http://localhost" })
    const server: Server = await new Promise((listening) => {
      const s = createApp(frank).listen(0, "127.0.0.1", () => listening(s))
    })
    return {
      frank,
      call: overHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
      close: async () => {
        server.closeAllConnections()
        await new Promise((closed) => server.close(closed))
        await frank.close()
      }
    }
  },
  { ownHomePage: true }
)
