/**
 * A claimed batch's slots, and the worker keeping one attempt's failure to itself.
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhooks, WebhookSigning } from "@frank/core"
import { signEachWith } from "../src/webhooks/signing/WebhookSigner.js"
import type { SignInput, StandardSignInput } from "../src/webhooks/signing/WebhookSigner.js"
import { ScriptedReceiver, Simulation, SimulationEngine, testPartner } from "@frank/core/testing"
import { type Context, Effect, TestClock } from "effect"
import { makeBatchSlots } from "../src/webhooks/internal/worker/batch/batchSlots.js"

describe("makeBatchSlots", () => {
  it("frees each slot once, whatever is reported twice, out of range or after the batch closed", () => {
    const freed: Array<number> = []
    const slots = makeBatchSlots(4, (n) => freed.push(n))
    expect(slots.settle(1)).toBe(true)
    expect(slots.settle(1)).toBe(false)
    expect(slots.settle(4)).toBe(false)
    expect(slots.settle(-1)).toBe(false)
    expect(slots.settle(3)).toBe(true)
    slots.close()
    // The two attempts that never reported are freed together on close.
    expect(freed).toEqual([1, 1, 2])
    expect(slots.settle(0)).toBe(false)
    slots.close()
    expect(freed).toEqual([1, 1, 2])
  })

  it("frees nothing on close when every attempt reported", () => {
    const freed: Array<number> = []
    const slots = makeBatchSlots(2, (n) => freed.push(n))
    slots.settle(0)
    slots.settle(1)
    slots.close()
    expect(freed).toEqual([1, 1])
  })
})

const T0 = Date.UTC(2026, 0, 1)

type Signer = Context.Tag.Service<typeof WebhookSigning.WebhookSigner>

/** Signers that die for one secret: through an Effect per signature, or by throwing in a synchronous loop. */
const brokenFor: ReadonlyArray<readonly [string, (secret: string, signer: Signer) => Signer]> = [
  [
    "an Effect signer",
    (broken, signer) => {
      const sign: Signer["sign"] = (secret, timestamp, body) =>
        secret === broken ? Effect.dieMessage("no key") : signer.sign(secret, timestamp, body)
      return { ...signer, sign, signEach: signEachWith(sign) }
    }
  ],
  [
    "a synchronous signer",
    (broken, signer) => {
      // Any signature will do: the scripted receiver records requests, it does not verify them.
      const signNow = (secret: string, timestamp: number) => {
        if (secret === broken) throw new Error("no key")
        return `sha256=${timestamp}-${secret.length}`
      }
      return {
        ...signer,
        sign: (secret, timestamp) => Effect.sync(() => signNow(secret, timestamp)),
        signEach: WebhookSigning.signEachNow(signNow)
      }
    }
  ]
]

describe("DeliveryWorker with a batch", () => {
  for (const [kind, breakSigner] of brokenFor)
    it.effect(
      `an attempt that cannot be signed (${kind}) is left to its lease; the rest of its batch is delivered`,
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(T0)
          const webhooks = yield* Webhooks.Webhooks
          const receiver = yield* ScriptedReceiver
          const sim = yield* Simulation
          const endpoints = yield* Effect.forEach(["a", "b", "c"], (name) =>
            webhooks.createEndpoint(testPartner("p1"), { url: `https://${name}.example/hook` })
          )
          const secretOfB = endpoints[1]?.secret ?? ""
          yield* Effect.forEach(endpoints, (e) => webhooks.sendTest(testPartner("p1"), e.id))
          // The signer dies for endpoint b's secret: a bug or a broken key, not an outcome.
          const signer = yield* WebhookSigning.WebhookSigner
          yield* sim.runDue.pipe(Effect.provideService(WebhookSigning.WebhookSigner, breakSigner(secretOfB, signer)))
          expect((yield* receiver.received).map((r) => new URL(r.url).hostname).sort()).toEqual([
            "a.example",
            "c.example"
          ])
          const statusOf = Effect.map(webhooks.listDeliveries(testPartner("p1"), {}, 10, undefined), ({ deliveries }) =>
            Object.fromEntries(deliveries.map((d) => [endpoints.findIndex((e) => e.id === d.endpointId), d.status]))
          )
          expect(yield* statusOf).toEqual({ 0: "delivered", 1: "delivering", 2: "delivered" })
          // Never sent, yet claimed: once its lease runs out it is uncertain, like any attempt the worker lost.
          yield* sim.advance("2 minutes")
          expect(yield* statusOf).toEqual({ 0: "delivered", 1: "uncertain", 2: "delivered" })
        }).pipe(Effect.provide(SimulationEngine()))
    )

  it.effect("a Standard Webhooks signature that dies fails its own attempt; the batch's Frank ones go out", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const webhooks = yield* Webhooks.Webhooks
      const receiver = yield* ScriptedReceiver
      const sim = yield* Simulation
      const frank = yield* webhooks.createEndpoint(testPartner("p1"), { url: "https://frank.example/hook" })
      const standard = yield* webhooks.createEndpoint(testPartner("p1"), {
        url: "https://standard.example/hook",
        signatureScheme: "standard-webhooks"
      })
      yield* Effect.forEach([frank, standard], (e) => webhooks.sendTest(testPartner("p1"), e.id))
      const signer = yield* WebhookSigning.WebhookSigner
      const broken: Signer = {
        ...signer,
        signStandardEach: WebhookSigning.signStandardEachNow(() => {
          throw new Error("no key")
        })
      }
      yield* sim.runDue.pipe(Effect.provideService(WebhookSigning.WebhookSigner, broken))
      expect((yield* receiver.received).map((r) => new URL(r.url).hostname)).toEqual(["frank.example"])
      const { deliveries } = yield* webhooks.listDeliveries(testPartner("p1"), {}, 10, undefined)
      expect(Object.fromEntries(deliveries.map((d) => [d.endpointId, d.status]))).toEqual({
        [frank.id]: "delivered",
        [standard.id]: "delivering"
      })
    }).pipe(Effect.provide(SimulationEngine()))
  )

  it.effect("a class-based synchronous signer keeps its `this` when the worker signs with it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const webhooks = yield* Webhooks.Webhooks
      const receiver = yield* ScriptedReceiver
      const sim = yield* Simulation
      // An embedder's signer whose methods use their instance, as a class with a key handle would.
      class PrefixSigner {
        readonly prefix = "sha256="
        sign(secret: string, timestamp: number, body: Uint8Array) {
          return Effect.sync(() => this.signNow(secret, timestamp, body))
        }
        signEach(inputs: ReadonlyArray<SignInput>) {
          return WebhookSigning.signEachNow((secret, timestamp, body) => this.signNow(secret, timestamp, body))(inputs)
        }
        signNow(secret: string, timestamp: number, body: Uint8Array) {
          return `${this.prefix}${timestamp}-${secret.length}-${body.length}`
        }
        signStandard(secret: string, messageId: string, timestamp: number, body: Uint8Array) {
          return Effect.sync(() => this.signStandardNow(secret, messageId, timestamp, body))
        }
        signStandardEach(inputs: ReadonlyArray<StandardSignInput>) {
          return WebhookSigning.signStandardEachNow((secret, messageId, timestamp, body) =>
            this.signStandardNow(secret, messageId, timestamp, body)
          )(inputs)
        }
        signStandardNow(_secret: string, messageId: string, timestamp: number, _body: Uint8Array) {
          return `v1,${messageId}-${timestamp}`
        }
      }
      const endpoint = yield* webhooks.createEndpoint(testPartner("p1"), {
        url: "https://a.example/hook",
        signatureScheme: "both"
      })
      const { event } = yield* webhooks.sendTest(testPartner("p1"), endpoint.id)
      yield* sim.runDue.pipe(Effect.provideService(WebhookSigning.WebhookSigner, new PrefixSigner()))
      const [request] = yield* receiver.received
      expect(request?.headers["X-Service-Signature"]).toMatch(/^sha256=\d+-\d+-\d+$/)
      expect(request?.headers["webhook-signature"]).toBe(`v1,${event.id}-${T0 / 1000}`)
      const { deliveries } = yield* webhooks.listDeliveries(testPartner("p1"), {}, 10, undefined)
      expect(deliveries.map((d) => d.status)).toEqual(["delivered"])
    }).pipe(Effect.provide(SimulationEngine()))
  )
})
