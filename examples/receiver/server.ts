/**
 * A minimal webhook receiver for Frank deliveries on node:http.
 *
 *   FRANK_WEBHOOK_SECRET=whsec_… [FRANK_WEBHOOK_PREVIOUS_SECRET=whsec_…] [PORT=8787] \
 *     node --conditions=@frank/source --import tsx examples/receiver/server.ts
 *
 * PORT=0 picks a free port; the port actually bound is printed as {"msg":"listening","port":…}.
 * Every POST, on any path, is treated as a delivery.
 *
 * FAIL_STATUS=503 (any status from 300 to 599): verify each delivery as usual, then answer it with
 * that status without processing it, to watch Frank record failed attempts (`responseCodes`,
 * `lastError`, `nextAttemptAt`) and retry. Restart without it to let the retries through.
 *
 * FRANK_WEBHOOK_PREVIOUS_SECRET: during a rotation on your side (you installed the new secret but
 * deliveries may still be signed with the old one only, or the reverse), accept both.
 *
 * Dedup runs on the memory store, which forgets everything on restart. For production, keep the
 * processed-event marker in your own database, in the same transaction as your business writes:
 *
 *   import { PostgresDatabase, SqlProcessedEvents } from "@frank/adapters"
 *   const Store = SqlProcessedEvents.pipe(
 *     Layer.provideMerge(Layer.effectDiscard(SqlProcessedEvents.ensureTable)),
 *     Layer.provideMerge(PostgresDatabase.layer(Redacted.make(process.env.DATABASE_URL!))))
 *   const runtime = ManagedRuntime.make(Store)
 *
 * and write the action with the same SqlClient (`yield* SqlClient.SqlClient`), so its writes commit
 * or roll back together with the marker.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { MemoryProcessedEvents } from "@frank/adapters"
import type { WebhookReceiver } from "@frank/core"
import { Effect, ManagedRuntime } from "effect"
import { authenticate, type Delivery, handleDelivery, type Reply, rejectionReply } from "./handleDelivery.js"

/** Frank's envelopes are small; refuse anything far larger before buffering it. */
const MAX_BODY_BYTES = 1024 * 1024

const secret = process.env.FRANK_WEBHOOK_SECRET
if (secret === undefined || secret.length === 0) {
  console.error("FRANK_WEBHOOK_SECRET is required (the endpoint secret Frank showed at registration or rotation)")
  process.exit(1)
}
const previous = process.env.FRANK_WEBHOOK_PREVIOUS_SECRET
const secrets = previous === undefined || previous.length === 0 ? [secret] : [secret, previous]
const port = Number(process.env.PORT ?? 8787)

const failStatusSetting = process.env.FAIL_STATUS
const failStatus =
  failStatusSetting === undefined || failStatusSetting.length === 0 ? undefined : Number(failStatusSetting)
if (failStatus !== undefined && !(Number.isInteger(failStatus) && failStatus >= 300 && failStatus <= 599)) {
  console.error(
    `FAIL_STATUS must be an HTTP status from 300 to 599 (anything Frank counts as a failed attempt), got ${JSON.stringify(failStatusSetting)}`
  )
  process.exit(1)
}

const runtime = ManagedRuntime.make(MemoryProcessedEvents.layer)

/** The business action; replace with yours. Runs at most once per eventId that succeeded. */
const onEvent = (event: WebhookReceiver.ReceivedEvent) =>
  Effect.sync(() =>
    console.log(
      JSON.stringify({ msg: "event processed", eventId: event.eventId, eventType: event.eventType, data: event.data })
    )
  )

/** FAIL_STATUS: authenticated like any delivery (a bad signature still gets its 400/401), never processed. */
const failOnPurpose = (status: number, delivery: Delivery): Effect.Effect<Reply> =>
  Effect.match(authenticate(secrets, delivery), {
    onFailure: rejectionReply,
    onSuccess: (event): Reply => ({ status, body: { eventId: event.eventId, error: "fail_status_set" } })
  })

/** The raw bytes, unparsed: the signature covers them exactly. `undefined` when over the limit. */
const readBody = async (req: IncomingMessage): Promise<Uint8Array | undefined> => {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) return undefined
    chunks.push(chunk)
  }
  return new Uint8Array(Buffer.concat(chunks))
}

const send = (res: ServerResponse, reply: Reply) => {
  res.writeHead(reply.status, { "content-type": "application/json" })
  res.end(JSON.stringify(reply.body))
}

const server = createServer(async (req, res) => {
  try {
    if (req.method !== "POST") return send(res, { status: 405, body: { error: "method_not_allowed" } })
    const rawBody = await readBody(req)
    if (rawBody === undefined) return send(res, { status: 413, body: { error: "body_too_large" } })
    const delivery = { headers: req.headers, rawBody }
    const reply = await runtime.runPromise(
      failStatus === undefined ? handleDelivery(secrets, delivery, onEvent) : failOnPurpose(failStatus, delivery)
    )
    console.log(JSON.stringify({ msg: "delivery answered", status: reply.status, ...reply.body }))
    send(res, reply)
  } catch (error) {
    console.error(JSON.stringify({ msg: "request failed", error: String(error) }))
    if (!res.headersSent) send(res, { status: 500, body: { error: "internal" } })
  }
})

server.listen(port, () => {
  const address = server.address()
  console.log(
    JSON.stringify({ msg: "listening", port: typeof address === "object" && address !== null ? address.port : port })
  )
})

const shutdown = () => {
  server.close(() => {
    runtime.dispose().finally(() => process.exit(0))
  })
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)
