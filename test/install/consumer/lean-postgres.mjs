// Ledger + webhooks on PostgreSQL from @frank/core and @frank/adapters installed alone, without
// the optional packages (the lean install of test/install/lean-install.test.ts): a credit, a hold
// and its confirmation in a fresh schema of DATABASE_URL, and the billing.settled event delivered
// by the delivery worker over real HTTP to a receiver in this process.
import { createServer } from "node:http"
import {
  HttpWebhookTransport,
  NodeSecrets,
  NodeWebhookSigner,
  SqlLedgerStore,
  SqlWebhookStore,
  TestDatabase
} from "@frank/adapters"
import { Events, Ids, Ledger, Webhooks } from "@frank/core"
import { testPartner } from "@frank/core/testing"
import { Effect, Layer, Redacted } from "effect"

const received = []
const server = createServer((req, res) => {
  req.resume()
  req.on("end", () => {
    const type = req.headers["x-service-event"]
    received.push({ type, signed: typeof req.headers["x-service-signature"] === "string" })
    res.end()
  })
})
await new Promise((listening) => server.listen(0, "127.0.0.1", listening))
const receiverUrl = `http://127.0.0.1:${server.address().port}/hook`

const Engine = Layer.mergeAll(
  Ledger.Ledger.layer,
  Webhooks.Webhooks.layer,
  Webhooks.DeliveryWorker.layer(Webhooks.defaultWorkerConfig)
).pipe(
  Layer.provideMerge(Events.Outbox.layerWithWakeup),
  Layer.provideMerge(Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer)),
  Layer.provideMerge(
    Layer.mergeAll(
      Ids.Ids.layer,
      NodeSecrets.layer(Redacted.make("a pepper of the app")),
      NodeWebhookSigner.layer,
      Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true }),
      HttpWebhookTransport.layerWith({ allowPrivateNetwork: true })
    )
  ),
  Layer.provideMerge(TestDatabase.layerPostgres(process.env.DATABASE_URL))
)

const program = Effect.gen(function* () {
  const ledger = yield* Ledger.Ledger
  const webhooks = yield* Webhooks.Webhooks
  const worker = yield* Webhooks.DeliveryWorker
  const partner = testPartner("lean-install")
  yield* webhooks.createEndpoint(partner, { url: receiverUrl, eventTypes: ["billing.settled"] })
  yield* ledger.credit(partner, { kind: "topup", amountMinor: 10_000, reference: "pay-1" })
  yield* ledger.reserve(partner, { taskId: "t1", amountMinor: 4_000 })
  yield* ledger.confirm(partner, { taskId: "t1", amountMinor: 2_500 })
  const attempted = yield* worker.runDue
  return { balance: yield* ledger.balance(partner), attempted }
})

try {
  const { balance, attempted } = await Effect.runPromise(program.pipe(Effect.provide(Engine)))
  const types = received.map((r) => r.type)
  if (balance.used !== 25 || balance.available !== 75) throw new Error(`balance ${JSON.stringify(balance)}`)
  if (attempted !== 1 || JSON.stringify(types) !== '["billing.settled"]' || !received[0].signed)
    throw new Error(`deliveries ${attempted}: ${JSON.stringify(received)}`)
  console.log("ok   ledger + webhooks on PostgreSQL: 25 charged, billing.settled delivered and signed")
} catch (e) {
  console.error("FAIL ledger + webhooks on PostgreSQL:", e)
  process.exitCode = 1
} finally {
  server.close()
}
