/**
 * Frank in a Fastify 5 app: the partner API and the cabinet under /frank, handed Node's raw
 * request and response. Run: `node --conditions=@frank/source --import tsx examples/frameworks/fastify/main.ts`
 * (tested by app.test.ts).
 */
import type { Frank } from "@frank/host/embed"
import Fastify, { type FastifyInstance } from "fastify"
import { BASE_PATH } from "../frankFromEnv.js"

/** Frank's routes in their own plugin scope, so the app keeps its body parsers everywhere else. */
const frankRoutes = (frank: Frank) => async (scope: FastifyInstance) => {
  // Fastify parses a body before the handler runs; Frank reads the raw stream itself, so in this
  // scope every content type is accepted and left unread.
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined))
  scope.all(`${BASE_PATH}/*`, (request, reply) => {
    // Frank answers on the raw response; Fastify must not send a reply of its own.
    reply.hijack()
    frank.node(request.raw, reply.raw)
  })
}

/** The app: Frank's scope, then the app's own routes. */
export const createApp = async (frank: Frank): Promise<FastifyInstance> => {
  const app = Fastify()
  await app.register(frankRoutes(frank))
  app.get("/", async () => "the app's own home page")
  // Your login leads into the cabinet. A stand-in: take the partner id from YOUR signed-in user
  // (stored beside it when you called frank.partners.create), not from the query.
  app.get<{ Querystring: { partner: string } }>("/account/billing", async (request, reply) =>
    reply.redirect(await frank.sessions.signInUrl(request.query.partner))
  )
  return app
}
