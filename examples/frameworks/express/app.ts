/**
 * Frank in an Express 5 app: the partner API and the cabinet under /frank through Frank's Node
 * mount, the app's own routes beside it. Run: `node --conditions=@frank/source --import tsx
 * examples/frameworks/express/main.ts` (tested by app.test.ts).
 */
import type { Frank } from "@frank/host/embed"
import express, { type Express } from "express"

/** The app: Frank first, then the app's own middleware and routes. */
export const createApp = (frank: Frank): Express => {
  const app = express()
  // Before any body parser: Frank reads the request body itself, and a parser that ran first
  // would leave it an empty stream. Paths outside /frank go on to `next`.
  app.use(frank.node)
  app.use(express.json())
  app.get("/", (_req, res) => {
    res.send("the app's own home page")
  })
  // Your login leads into the cabinet. A stand-in: take the partner id from YOUR signed-in user
  // (stored beside it when you called frank.partners.create), not from the query.
  app.get("/account/billing", async (req, res, next) => {
    try {
      res.redirect(await frank.sessions.signInUrl(String(req.query.partner)))
    } catch (error) {
      next(error)
    }
  })
  return app
}
