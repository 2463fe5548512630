/**
 * The worker's signing step alone: `attemptRequests` (the requests of one claimed batch, signed
 * with one signer call per scheme in use) on the Node signer, in µs per attempt, for a batch of
 * 256 claims on 10 endpoints in one signature scheme.
 *
 *   node --conditions=@frank/source --import tsx bench/webhooks-signing.ts [scheme] [repository root]
 *
 * scheme: frank (default), standard-webhooks or both. A repository root other than this one (a
 * checkout of another commit, with its node_modules) measures that tree's code instead: run the
 * two alternately, the machine's load drifts.
 */
import { resolve } from "node:path"

const scheme = process.argv[2] ?? "frank"
const root = resolve(process.argv[3] ?? resolve(import.meta.dirname, ".."))
const { attemptRequests } = await import(`${root}/packages/core/src/webhooks/attemptRequest.ts`)
const { NodeWebhookSigner } = await import(`${root}/packages/adapters/src/webhooks/NodeWebhookSigner.ts`)
// The tree's own effect, so its services and runtime are one instance.
const { Effect } = await import(`${root}/node_modules/effect/dist/esm/index.js`)

const BATCH = 256
const ROUNDS = 1500
const now = 1_800_000_000_000
const payload = JSON.stringify({
  eventId: "0b7c6a52-8f0e-4c31-9d7a-2f1b9c2c1a01",
  eventType: "billing.settled",
  occurredAt: "2027-01-15T08:00:00.000Z",
  partnerId: "p_1",
  schemaVersion: 1,
  data: { transactionId: "t1", amountFranks: 12.5 }
})
const claims = Array.from({ length: BATCH }, (_, i) => ({
  partnerId: "p1",
  id: `d${i}`,
  endpointId: `e${i % 10}`,
  eventId: `ev${i}`,
  eventType: "billing.settled",
  payload,
  url: "https://receiver.example/hook",
  secret: `whsec_${Buffer.alloc(32, i % 10).toString("base64")}`,
  previousSecret: null,
  previousSecretValidUntil: null,
  signatureScheme: scheme,
  state: { status: "delivering", attempts: 1, nextAttemptAt: null, leaseUntil: now + 60_000 },
  claimToken: "t",
  createdAt: 0
}))
const signBatch = attemptRequests(claims, now).pipe(Effect.provide(NodeWebhookSigner))
for (let i = 0; i < 200; i++) Effect.runSync(signBatch)
const started = performance.now()
for (let i = 0; i < ROUNDS; i++) Effect.runSync(signBatch)
const perAttempt = ((performance.now() - started) * 1000) / (ROUNDS * BATCH)
console.log(JSON.stringify({ root, scheme, usPerAttempt: Number(perAttempt.toFixed(2)) }))
