/**
 * Deliveries signed in each scheme, on every store, checked by the Standard Webhooks libraries
 * (`standardwebhooks`, `svix`) and by the simulation kit's `verifyReceived`: which headers each
 * scheme sends, both signatures through a rotation window and one after it, the event id as
 * `webhook-id` across a replay, and an older base64url secret still signing Frank's scheme.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Ids, Webhooks, type WebhookSigning } from "@frank/core"
import {
  type EngineStores,
  type ReceivedRequest,
  ScriptedReceiver,
  Simulation,
  SimulationEngine,
  testPartner,
  verifyReceived
} from "@frank/core/testing"
import { Effect, type Layer, Schema, TestClock } from "effect"
import { libraries, libraryVerdict } from "../support/standardLibraries.js"
import { EndpointStore } from "@frank/core/stores"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const T0 = Date.UTC(2026, 10, 2, 9, 0, 0)
const STANDARD_HEADERS = ["webhook-id", "webhook-signature", "webhook-timestamp"]

const newUrl = () => `https://receiver-${uuid().slice(0, 8)}.example/hook`

/** Each library's verdict on `r` with `secret`, at the instant it was received. */
const verdicts = (secret: string, r: ReceivedRequest) => libraries.map((l) => libraryVerdict(l, secret, r, r.at))

const schemeHeaders = (r: ReceivedRequest) => ({
  frank: Object.keys(r.headers).filter((h) => h.startsWith("X-Service-")).length > 0,
  standard: STANDARD_HEADERS.filter((h) => h in r.headers)
})

/** A partner's endpoint in `scheme` and a test event delivered to it: the request the receiver got. */
const deliveredTest = (signatureScheme: WebhookSigning.SignatureScheme) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const webhooks = yield* Webhooks.Webhooks
    const partnerId = testPartner(`p_${uuid()}`)
    const url = newUrl()
    const endpoint = yield* webhooks.createEndpoint(partnerId, { url, signatureScheme })
    const { event } = yield* webhooks.sendTest(partnerId, endpoint.id)
    yield* (yield* Simulation).runDue
    const got = (yield* (yield* ScriptedReceiver).received).filter((r) => r.url === url)
    expect(got).toHaveLength(1)
    return { webhooks, partnerId, url, endpoint, eventId: event.id, request: got[0] as ReceivedRequest }
  })

export const signatureSchemeDeliveryContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  layer(SimulationEngine({ stores }), { timeout: 120_000 })(`signature schemes on ${engine}`, (it) => {
    it.effect("each scheme sends its header set; the libraries verify standard and both, the kit all three", () =>
      Effect.gen(function* () {
        for (const scheme of ["frank", "standard-webhooks", "both"] as const) {
          const { endpoint, eventId, request } = yield* deliveredTest(scheme)
          expect(schemeHeaders(request), scheme).toEqual({
            frank: scheme !== "standard-webhooks",
            standard: scheme === "frank" ? [] : STANDARD_HEADERS
          })
          expect(yield* verifyReceived(request, endpoint.secret)).toMatchObject({ ok: true, eventId })
          if (scheme === "frank") continue
          expect(request.headers["webhook-id"]).toBe(eventId)
          expect(request.headers["webhook-timestamp"]).toBe(String(T0 / 1000))
          expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
          expect(verdicts(endpoint.secret, request), scheme).toEqual(["ok", "ok"])
          expect(yield* verifyReceived(request, endpoint.secret, "standard-webhooks")).toMatchObject({
            ok: true,
            scheme: "standard-webhooks",
            eventId
          })
          // Signed for this endpoint's secret only.
          const other = `whsec_${Buffer.alloc(32, 7).toString("base64")}`
          expect(verdicts(other, request)).toEqual(["No matching signature found", "No matching signature found"])
        }
      })
    )

    it.effect("rotation: both signatures for 6 h, each secret verifies; then only the new one", () =>
      Effect.gen(function* () {
        const { webhooks, partnerId, url, endpoint } = yield* deliveredTest("standard-webhooks")
        const sim = yield* Simulation
        const receiver = yield* ScriptedReceiver
        const oldSecret = endpoint.secret
        const newSecret = (yield* webhooks.rotateSecret(partnerId, endpoint.id)).secret
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* sim.runDue
        const during = (yield* receiver.received).filter((r) => r.url === url)[1] as ReceivedRequest
        expect(during.headers["webhook-signature"]?.split(" ")).toHaveLength(2)
        expect(verdicts(newSecret, during)).toEqual(["ok", "ok"])
        expect(verdicts(oldSecret, during)).toEqual(["ok", "ok"])
        expect(yield* verifyReceived(during, [oldSecret])).toMatchObject({ ok: true })

        yield* sim.advance(6 * HOUR + MINUTE)
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* sim.runDue
        const after = (yield* receiver.received).filter((r) => r.url === url)[2] as ReceivedRequest
        expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1)
        expect(verdicts(newSecret, after)).toEqual(["ok", "ok"])
        expect(verdicts(oldSecret, after)).toEqual(["No matching signature found", "No matching signature found"])
        expect(yield* verifyReceived(after, oldSecret)).toEqual({ ok: false, reason: "signature_mismatch" })
      })
    )

    it.effect("a replay keeps webhook-id; the libraries refuse a delivery past their 5-minute window", () =>
      Effect.gen(function* () {
        const { webhooks, partnerId, url, endpoint, eventId, request } = yield* deliveredTest("both")
        const [delivery] = (yield* webhooks.listDeliveries(partnerId, {}, 10, undefined)).deliveries
        yield* TestClock.adjust(HOUR)
        yield* webhooks.replay(partnerId, delivery?.id ?? expect.unreachable())
        yield* (yield* Simulation).runDue
        const replayed = (yield* (yield* ScriptedReceiver).received).filter((r) => r.url === url)[1] as ReceivedRequest
        expect(replayed.headers["webhook-id"]).toBe(eventId)
        expect(replayed.headers["X-Service-Event-Id"]).toBe(eventId)
        expect(verdicts(endpoint.secret, replayed)).toEqual(["ok", "ok"])
        // The first delivery an hour later: the libraries' own tolerance refuses it.
        expect(libraries.map((l) => libraryVerdict(l, endpoint.secret, request, T0 + HOUR))).toEqual([
          "Message timestamp too old",
          "Message timestamp too old"
        ])
      })
    )

    it.effect(
      "an older base64url secret: Frank's scheme as before; after a rotation, both with the old one previous",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(T0)
          const webhooks = yield* Webhooks.Webhooks
          const store = yield* EndpointStore
          const partnerId = testPartner(`p_${uuid()}`)
          const url = newUrl()
          const id = Schema.decodeSync(Ids.EndpointId)(uuid())
          const legacy = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => 255 - i * 5)).toString("base64url")}`
          yield* store.insertEndpoint(
            {
              partnerId,
              id,
              url,
              eventTypes: null,
              active: true,
              secret: legacy,
              previousSecret: null,
              previousSecretValidUntil: null,
              signatureScheme: "frank",
              rateLimitPerSecond: null,
              health: Webhooks.newEndpointHealth,
              createdAt: T0,
              updatedAt: T0
            },
            10
          )
          const sim = yield* Simulation
          const receiver = yield* ScriptedReceiver
          yield* webhooks.sendTest(partnerId, id)
          yield* sim.runDue
          const asBefore = (yield* receiver.received).filter((r) => r.url === url)[0] as ReceivedRequest
          expect(schemeHeaders(asBefore)).toEqual({ frank: true, standard: [] })
          expect(yield* verifyReceived(asBefore, legacy)).toMatchObject({ ok: true, scheme: "frank" })

          const fresh = (yield* webhooks.rotateSecret(partnerId, id)).secret
          yield* webhooks.updateEndpoint(partnerId, id, { signatureScheme: "both" })
          yield* webhooks.sendTest(partnerId, id)
          yield* sim.runDue
          const switched = (yield* receiver.received).filter((r) => r.url === url)[1] as ReceivedRequest
          expect(verdicts(fresh, switched)).toEqual(["ok", "ok"])
          // The old secret still verifies Frank's previous-signature header, and the kit (which
          // also reads base64url) its standard signature.
          expect(yield* verifyReceived(switched, legacy, "frank")).toMatchObject({ ok: true })
          expect(yield* verifyReceived(switched, legacy, "standard-webhooks")).toMatchObject({ ok: true })
        })
    )
  })
}
