/**
 * Frank in a Hono app: the partner API and the cabinet under /frank through `frank.fetch`, Hono's
 * own Fetch API request handed over as it is. Run: `node --conditions=@frank/source --import tsx
 * examples/frameworks/hono/main.ts` (tested by app.test.ts).
 */
import type { Frank } from "@frank/host/embed"
import { Hono } from "hono"
import { BASE_PATH } from "../frankFromEnv.js"

/** The app: Frank's routes and the app's own. */
export const createApp = (frank: Frank): Hono => {
  const app = new Hono()
  // The raw Request: its body is still unread, and Frank answers with a Response of its own.
  app.all(`${BASE_PATH}/*`, (c) => frank.fetch(c.req.raw))
  app.get("/", (c) => c.text("the app's own home page"))
  // Your login leads into the cabinet. A stand-in: take the partner id from YOUR signed-in user
  // (stored beside it when you called frank.partners.create), not from the query.
  app.get("/account/billing", async (c) => c.redirect(await frank.sessions.signInUrl(c.req.query("partner") ?? "")))
  return app
}
