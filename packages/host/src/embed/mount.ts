/**
 * Frank served from the embedder's own server: `frank.fetch(request)` for Fetch-style frameworks
 * (Hono, Next.js route handlers, Bun, Deno) and `frank.node(req, res, next?)` for Node's
 * `(req, res)` (Express, Fastify's raw request, NestJS, node:http). Under `basePath` it serves the
 * partner API (`{basePath}/v1/…`) and the cabinet (`{basePath}/cabinet`); anything else answers
 * 404, or goes to `next` in the Node mount.
 *
 * The API sees paths without the base path: its rate limits and scopes are keyed by its own route
 * templates. The cabinet is routed with the base path, since it also writes its links with it.
 */
import { Readable } from "node:stream"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import { Cabinet } from "@frank/adapters"
import { ErrorEnvelopesLive, PartnerApiLive } from "@frank/core/http"
import { Effect, Layer, type ManagedRuntime, Option } from "effect"
import type { HostConfig, HostConfigShape } from "../config/HostConfig.js"
import type { EngineServices } from "../engine.js"
import type { SandboxClock } from "../sandbox/SandboxClock.js"
import { HostApiLive } from "../server/HostApiLive.js"

/** The two mounts and how to release them. */
export interface FrankMounts {
  /** Answers a Fetch API request under the base path (404 elsewhere). */
  readonly fetch: (request: Request) => Promise<Response>
  /** Serves a Node request under the base path; elsewhere calls `next` (or answers 404 without one). */
  readonly node: (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void
  /** Releases the handlers. */
  readonly dispose: () => Promise<void>
}

const notFound = () =>
  new Response(JSON.stringify({ statusCode: 404, code: "NOT_FOUND", message: "not a Frank route" }), {
    status: 404,
    headers: { "content-type": "application/json" }
  })

/** `request` with `base` cut off its path. */
const withoutBase = (request: Request, url: URL, base: string): Request => {
  const stripped = new URL(url)
  stripped.pathname = url.pathname.slice(base.length) || "/"
  return new Request(stripped, request)
}

/** The partner API alone, or with the admin API when the config holds an admin token. */
const apiLayer = (config: HostConfigShape) =>
  Option.match(config.adminToken, {
    onNone: () => PartnerApiLive,
    onSome: (token) => HostApiLive(token)
  })

/** Builds both handlers over the runtime's engine (`layer` is the runtime's own layer, shared through its memo map). */
export const makeMounts = async (
  runtime: ManagedRuntime.ManagedRuntime<EngineServices, unknown>,
  layer: Layer.Layer<EngineServices | HostConfig | SandboxClock, unknown>,
  config: HostConfigShape,
  basePath: string
): Promise<FrankMounts> => {
  const api = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(apiLayer(config), ErrorEnvelopesLive, HttpServer.layerContext).pipe(Layer.provide(layer)),
    { memoMap: runtime.memoMap }
  )
  const cabinetBase = `${basePath}/cabinet`
  const router = await runtime.runPromise(
    Cabinet.makeRouter({
      basePath: cabinetBase,
      secureCookie: config.publicBaseUrl.startsWith("https:"),
      trustProxy: config.trustProxy,
      trustedOrigins: [config.publicBaseUrl]
    })
  )
  const cabinet = HttpApp.toWebHandlerRuntime(await runtime.runtime())(Effect.scoped(router))
  const fetch = (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    const path = url.pathname
    if (path === cabinetBase || path.startsWith(`${cabinetBase}/`)) return cabinet(request)
    if (basePath === "") return api.handler(request)
    if (path.startsWith(`${basePath}/`)) return api.handler(withoutBase(request, url, basePath))
    return Promise.resolve(notFound())
  }
  const node = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/"
    const ours = basePath === "" || path === basePath || path.startsWith(`${basePath}/`)
    if (!ours) return next === undefined ? void res.writeHead(404).end() : next()
    fetch(toRequest(req)).then(
      (response) => writeResponse(response, res),
      (err: unknown) => (next === undefined ? void res.writeHead(500).end() : next(err))
    )
  }
  return { fetch, node, dispose: api.dispose }
}

/** A Node request as a Fetch request; the body streams. */
const toRequest = (req: IncomingMessage): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  const method = req.method ?? "GET"
  const hasBody = method !== "GET" && method !== "HEAD"
  return new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`), {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as unknown as ReadableStream, duplex: "half" } : {})
  } as RequestInit)
}

/** Writes a Fetch response to Node's response, cookies one header each. */
const writeResponse = (response: Response, res: ServerResponse) => {
  const headers: Record<string, string | Array<string>> = {}
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers["set-cookie"] = cookies
  res.writeHead(response.status, headers)
  if (response.body === null) return void res.end()
  Readable.fromWeb(response.body as unknown as NodeReadableStream).pipe(res)
}
