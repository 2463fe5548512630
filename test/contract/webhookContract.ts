/**
 * The webhook contract: the same cases against every store pair (memory, PGlite, Postgres),
 * driven by the simulation kit under TestClock. It covers the retry schedule, leases and
 * uncertain deliveries, rotation, replay codes, endpoint rules, the delivery log and the events
 * the ledger writes through the outbox. A store is done when it passes all of them.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Events, Ids, Ledger, WebhookReceiver, Webhooks } from "@frank/core"
import {
  type EngineStores,
  ScriptedReceiver,
  type ScriptedAnswer,
  Simulation,
  SimulationEngine,
  testPartner,
  testTask
} from "@frank/core/testing"
import { Effect, Either, type Layer, Schema, TestClock } from "effect"
import { DeliveryLog, DeliveryQueue, EndpointStore } from "@frank/core/stores"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)

const newPartner = () => testPartner(`p_${uuid()}`)
/** An id in upper case as it reaches the engine: decoded at the edge, as the HTTP handlers do. */
const upper = <A>(schema: Schema.Schema<A, string>, id: string): A => Schema.decodeSync(schema)(id.toUpperCase())
const newUrl = () => `https://receiver-${uuid().slice(0, 8)}.example/hook`

/** Requests the scripted receiver got at `url`, with times relative to T0 in minutes. */
const receivedAt = (url: string) =>
  Effect.map(ScriptedReceiver, (r) => r.received).pipe(
    Effect.flatten,
    Effect.map((all) => all.filter((x) => x.url === url))
  )

const minutesOf = (rs: ReadonlyArray<{ at: number }>) => rs.map((r) => (r.at - T0) / MINUTE)

const setup = (answers: ReadonlyArray<ScriptedAnswer> = [], eventTypes?: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const webhooks = yield* Webhooks.Webhooks
    const receiver = yield* ScriptedReceiver
    const partnerId = newPartner()
    const url = newUrl()
    yield* receiver.script(url, answers)
    const endpoint = yield* webhooks.createEndpoint(partnerId, eventTypes === undefined ? { url } : { url, eventTypes })
    return { webhooks, partnerId, url, endpoint }
  })

const deliveriesOf = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Webhooks.Webhooks, (w) =>
    Effect.map(w.listDeliveries(partnerId, {}, 100, undefined), (p) => p.deliveries)
  )

const onlyDelivery = (partnerId: Ids.PartnerId) =>
  Effect.map(deliveriesOf(partnerId), (ds) => {
    expect(ds).toHaveLength(1)
    return ds[0] as (typeof ds)[number]
  })

export const webhookContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  layer(SimulationEngine({ stores }), { timeout: 120_000 })(`webhooks on ${engine}`, (it) => {
    it.effect("full retry schedule: attempts at 0, 1, 6, 36, 156, 516 minutes, then dead_lettered", () =>
      Effect.gen(function* () {
        const { webhooks, partnerId, url, endpoint } = yield* setup([503, 503, 503, 503, 503, 503])
        const sim = yield* Simulation
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* sim.advance(10 * HOUR)
        const got = yield* receivedAt(url)
        expect(minutesOf(got)).toEqual([0, 1, 6, 36, 156, 516])
        // One event, one body: every attempt carried the same id and bytes.
        expect(new Set(got.map((r) => r.headers["X-Service-Event-Id"])).size).toBe(1)
        expect(new Set(got.map((r) => r.body)).size).toBe(1)
        const d = yield* onlyDelivery(partnerId)
        expect(d.status).toBe("dead_lettered")
        expect(d.attempts).toBe(6)
        expect(d.responseCodes).toEqual([503, 503, 503, 503, 503, 503])
      })
    )

    it.effect(
      "failures then success: timeouts and connection errors count as failures; delivered at the third attempt",
      () =>
        Effect.gen(function* () {
          const { webhooks, partnerId, url, endpoint } = yield* setup([500, "timeout", "connection-error", 204])
          const sim = yield* Simulation
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* sim.advance(2 * HOUR)
          // The connection error never reached the receiver; the 4th attempt (36 min) did.
          expect(minutesOf(yield* receivedAt(url))).toEqual([0, 1, 36])
          const d = yield* onlyDelivery(partnerId)
          expect(d.status).toBe("delivered")
          expect(d.responseCodes).toEqual([500, null, null, 204])
          expect(d.lastError).toBeNull()
        })
    )

    it.effect("a 3xx is a failure and is not followed", () =>
      Effect.gen(function* () {
        const { webhooks, partnerId, endpoint } = yield* setup([302])
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* (yield* Simulation).runDue
        const d = yield* onlyDelivery(partnerId)
        expect(d.status).toBe("pending")
        expect(d.lastError).toContain("redirect 302")
      })
    )

    it.effect(
      "crash mid-request: uncertain after the lease, never retried automatically; replay delivers the same event",
      () =>
        Effect.gen(function* () {
          const { webhooks, partnerId, url, endpoint } = yield* setup(["crash"])
          const sim = yield* Simulation
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* sim.runDue
          expect((yield* onlyDelivery(partnerId)).status).toBe("delivering")
          yield* sim.advance(2 * MINUTE)
          const d = yield* onlyDelivery(partnerId)
          expect(d.status).toBe("uncertain")
          expect(d.responseCodes).toEqual([null])
          expect(d.lastError).toContain("outcome unknown")
          yield* sim.advance(12 * HOUR)
          expect(yield* receivedAt(url)).toHaveLength(1)
          const replayed = yield* webhooks.replay(partnerId, d.id)
          expect(replayed.status).toBe("pending")
          expect(replayed.attempts).toBe(0)
          yield* sim.runDue
          const got = yield* receivedAt(url)
          expect(got).toHaveLength(2)
          expect(got[1]?.headers["X-Service-Event-Id"]).toBe(got[0]?.headers["X-Service-Event-Id"])
          expect(got[1]?.body).toBe(got[0]?.body)
          expect((yield* onlyDelivery(partnerId)).status).toBe("delivered")
        })
    )

    it.effect(
      "a lease ending before the request was marked sent: pending again, attempt uncounted, then delivered by itself; a sent one is uncertain",
      () =>
        Effect.gen(function* () {
          // Earlier than every other case's deliveries, so the claim below takes only this case's.
          const at = T0 - 40 * 24 * HOUR
          yield* TestClock.setTime(at)
          const webhooks = yield* Webhooks.Webhooks
          const store = yield* DeliveryQueue
          const log = yield* DeliveryLog
          const sim = yield* Simulation
          const partnerId = newPartner()
          const url = newUrl()
          yield* (yield* ScriptedReceiver).script(url, [200, 200])
          const endpoint = yield* webhooks.createEndpoint(partnerId, { url })
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* webhooks.sendTest(partnerId, endpoint.id)
          // A worker claims both in two batches, marks one sent, and dies before the other's
          // request went out (a mark covers its claim's whole batch, so each is a batch of one).
          const [unsent] = yield* store.claimDue(at, MINUTE, 1, `unsent-${uuid()}`)
          const [sent] = yield* store.claimDue(at, MINUTE, 1, `sent-${uuid()}`)
          if (unsent === undefined || sent === undefined) return expect.fail("two claims expected")
          expect([unsent.partnerId, sent.partnerId]).toEqual([partnerId, partnerId])
          yield* store.markSent([sent], at)
          const stateOf = (id: Ids.DeliveryId) =>
            Effect.map(log.getDelivery(partnerId, id), (d) => ({
              status: d?.status,
              attempts: d?.attempts,
              codes: d?.responseCodes
            }))
          expect(yield* stateOf(unsent.id)).toEqual({ status: "delivering", attempts: 1, codes: [] })
          expect(yield* store.expireLeases(at + MINUTE - 1)).toBe(0)
          // At the lease's end: the sent one is uncertain, the other is due again as if never claimed.
          yield* TestClock.setTime(at + MINUTE)
          expect(yield* store.expireLeases(at + MINUTE)).toBe(1)
          expect(yield* stateOf(sent.id)).toEqual({ status: "uncertain", attempts: 1, codes: [null] })
          expect(yield* stateOf(unsent.id)).toEqual({ status: "pending", attempts: 0, codes: [] })
          expect((yield* log.getDelivery(partnerId, unsent.id))?.nextAttemptAt).toBe(at + MINUTE)
          expect(yield* receivedAt(url)).toHaveLength(0)
          // The worker retries it by itself, once; the uncertain one is never retried.
          yield* sim.advance(12 * HOUR)
          expect(yield* stateOf(unsent.id)).toEqual({ status: "delivered", attempts: 1, codes: [200] })
          expect(yield* stateOf(sent.id)).toEqual({ status: "uncertain", attempts: 1, codes: [null] })
          const got = yield* receivedAt(url)
          expect(got.map((r) => [r.at - at, r.headers["X-Service-Event-Id"]])).toEqual([[MINUTE, unsent.eventId]])
        })
    )

    it.effect("a claim never sent whose endpoint was deleted meanwhile is removed at the lease's end", () =>
      Effect.gen(function* () {
        const at = T0 - 50 * 24 * HOUR
        yield* TestClock.setTime(at)
        const webhooks = yield* Webhooks.Webhooks
        const store = yield* DeliveryQueue
        const partnerId = newPartner()
        const endpoint = yield* webhooks.createEndpoint(partnerId, { url: newUrl() })
        yield* webhooks.sendTest(partnerId, endpoint.id)
        const [claim] = yield* store.claimDue(at, MINUTE, 10, `unsent-${uuid()}`)
        expect(claim?.partnerId).toBe(partnerId)
        yield* webhooks.deleteEndpoint(partnerId, endpoint.id)
        expect(yield* store.expireLeases(at + MINUTE)).toBe(0)
        expect(yield* deliveriesOf(partnerId)).toEqual([])
        expect(yield* store.nextWakeAt()).not.toBe(at + MINUTE)
      })
    )

    it.effect("replay codes: not found, not replayable while queued, endpoint inactive, endpoint deleted", () =>
      Effect.gen(function* () {
        const { webhooks, partnerId, endpoint } = yield* setup([500])
        const sim = yield* Simulation
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* sim.runDue
        const pending = yield* onlyDelivery(partnerId)
        expect(pending.status).toBe("pending")
        expect(yield* Effect.flip(webhooks.replay(partnerId, pending.id))).toBeInstanceOf(
          Webhooks.DeliveryNotReplayable
        )
        expect(yield* Effect.flip(webhooks.replay(partnerId, Ids.DeliveryId.make(uuid())))).toBeInstanceOf(
          Webhooks.DeliveryNotFound
        )
        // A foreign partner's id behaves exactly like a missing one.
        expect(yield* Effect.flip(webhooks.replay(newPartner(), pending.id))).toBeInstanceOf(Webhooks.DeliveryNotFound)
        yield* sim.advance(MINUTE)
        const delivered = yield* onlyDelivery(partnerId)
        expect(delivered.status).toBe("delivered")
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: false })
        expect(yield* Effect.flip(webhooks.replay(partnerId, delivered.id))).toBeInstanceOf(
          Webhooks.DeliveryEndpointInactive
        )
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: true })
        yield* webhooks.deleteEndpoint(partnerId, endpoint.id)
        expect(yield* Effect.flip(webhooks.replay(partnerId, delivered.id))).toBeInstanceOf(
          Webhooks.DeliveryEndpointDeleted
        )
      })
    )

    it.effect(
      "rotation: both signatures inside the 6 h window, only the new one after; a second rotation drops the oldest secret",
      () =>
        Effect.gen(function* () {
          const { webhooks, partnerId, url, endpoint } = yield* setup()
          const sim = yield* Simulation
          const s0 = endpoint.secret
          const s1 = (yield* webhooks.rotateSecret(partnerId, endpoint.id)).secret
          expect(s1).not.toBe(s0)
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* sim.runDue
          const verify = (
            secret: string,
            r: { headers: Readonly<Record<string, string>>; body: string; at: number },
            header: string
          ) =>
            Effect.promise(() =>
              WebhookReceiver.verifyWebhook({
                secret,
                headers: {
                  ...r.headers,
                  "X-Service-Signature": r.headers[header] ?? "",
                  "X-Service-Signature-Previous": ""
                },
                rawBody: r.body,
                now: r.at
              })
            ).pipe(Effect.map((v) => v.ok))
          let got = yield* receivedAt(url)
          const first = got[0] as (typeof got)[number]
          expect(yield* verify(s1, first, "X-Service-Signature")).toBe(true)
          expect(yield* verify(s0, first, "X-Service-Signature-Previous")).toBe(true)
          expect(yield* verify(s0, first, "X-Service-Signature")).toBe(false)

          // Inside the window the store keeps the old secret; the first sweep after it wipes it.
          const store = yield* EndpointStore
          expect((yield* store.getEndpoint(partnerId, endpoint.id))?.previousSecret).toBe(s0)
          // Nothing else is due: the window's end is the next thing to wake for (the wipe).
          expect(yield* (yield* DeliveryQueue).nextWakeAt()).toBe(T0 + 6 * HOUR)
          yield* sim.advance(6 * HOUR - 1000)
          expect((yield* store.getEndpoint(partnerId, endpoint.id))?.previousSecret).toBe(s0)
          yield* sim.advance(2000)
          const wiped = yield* store.getEndpoint(partnerId, endpoint.id)
          expect([wiped?.previousSecret, wiped?.previousSecretValidUntil, wiped?.secret]).toEqual([null, null, s1])
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* sim.runDue
          got = yield* receivedAt(url)
          const afterWindow = got[1] as (typeof got)[number]
          expect(afterWindow.headers["X-Service-Signature-Previous"]).toBeUndefined()
          expect(yield* verify(s1, afterWindow, "X-Service-Signature")).toBe(true)

          // Two rotations inside one window: s1 → s2 → s3 keeps only s2 as previous.
          const s2 = (yield* webhooks.rotateSecret(partnerId, endpoint.id)).secret
          yield* sim.advance(MINUTE)
          const s3 = (yield* webhooks.rotateSecret(partnerId, endpoint.id)).secret
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* sim.runDue
          got = yield* receivedAt(url)
          const twice = got[2] as (typeof got)[number]
          expect(yield* verify(s3, twice, "X-Service-Signature")).toBe(true)
          expect(yield* verify(s2, twice, "X-Service-Signature-Previous")).toBe(true)
          expect(yield* verify(s1, twice, "X-Service-Signature-Previous")).toBe(false)
        })
    )

    it.effect("endpoints: at most 10 per partner under concurrent registration; deleting frees a slot", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const webhooks = yield* Webhooks.Webhooks
        const partnerId = newPartner()
        const results = yield* Effect.forEach(
          Array.from({ length: 15 }, () => newUrl()),
          (url) => Effect.either(webhooks.createEndpoint(partnerId, { url })),
          { concurrency: "unbounded" }
        )
        const created = results.filter(Either.isRight)
        expect(created).toHaveLength(10)
        for (const r of results.filter(Either.isLeft)) expect(r.left._tag).toBe("EndpointLimitExceeded")
        expect(yield* webhooks.listEndpoints(partnerId)).toHaveLength(10)
        const firstCreated = created[0]
        if (firstCreated === undefined) return expect.unreachable()
        yield* webhooks.deleteEndpoint(partnerId, firstCreated.right.id)
        expect(Either.isRight(yield* Effect.either(webhooks.createEndpoint(partnerId, { url: newUrl() })))).toBe(true)
        // Another partner's quota is its own.
        expect(Either.isRight(yield* Effect.either(webhooks.createEndpoint(newPartner(), { url: newUrl() })))).toBe(
          true
        )
      })
    )

    it.effect(
      "fan-out follows subscriptions and the active flag; a paused endpoint's deliveries resume on reactivation",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(T0)
          const webhooks = yield* Webhooks.Webhooks
          const ledger = yield* Ledger.Ledger
          const sim = yield* Simulation
          const partnerId = newPartner()
          const settledOnly = yield* webhooks.createEndpoint(partnerId, {
            url: newUrl(),
            eventTypes: ["billing.settled"]
          })
          const all = yield* webhooks.createEndpoint(partnerId, { url: newUrl() })
          yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 500_000, reference: "pay-1" })
          let ds = yield* deliveriesOf(partnerId)
          expect(ds.map((d) => [d.endpointId, d.eventType])).toEqual([[all.id, "billing.topup.confirmed"]])
          // Paused before the worker ran: the delivery waits, new events skip the endpoint.
          yield* webhooks.updateEndpoint(partnerId, all.id, { active: false })
          yield* sim.advance(MINUTE)
          ds = yield* deliveriesOf(partnerId)
          expect(ds.map((d) => d.status)).toEqual(["pending"])
          yield* ledger.reserve(partnerId, { taskId: testTask("t1"), amountMinor: 10_000 })
          yield* ledger.confirm(partnerId, { taskId: testTask("t1"), amountMinor: 7_000 })
          ds = yield* deliveriesOf(partnerId)
          expect(ds.filter((d) => d.endpointId === all.id)).toHaveLength(1)
          expect(ds.filter((d) => d.endpointId === settledOnly.id).map((d) => d.eventType)).toEqual(["billing.settled"])
          yield* webhooks.updateEndpoint(partnerId, all.id, { active: true })
          yield* sim.runDue
          ds = yield* deliveriesOf(partnerId)
          expect(ds.every((d) => d.status === "delivered")).toBe(true)
        })
    )

    it.effect("deleting an endpoint removes its pending deliveries and keeps the others in the log", () =>
      Effect.gen(function* () {
        const { webhooks, partnerId, endpoint } = yield* setup([200, 500])
        const sim = yield* Simulation
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* sim.runDue
        expect((yield* deliveriesOf(partnerId)).map((d) => d.status).sort()).toEqual(["delivered", "pending"])
        yield* webhooks.deleteEndpoint(partnerId, endpoint.id)
        expect((yield* deliveriesOf(partnerId)).map((d) => d.status)).toEqual(["delivered"])
        // The deletion finished: the sweep finds nothing of it left to purge.
        expect(yield* (yield* DeliveryQueue).purgeDeletedEndpoints(T0 + HOUR)).toBe(0)
        expect(yield* webhooks.listEndpoints(partnerId)).toHaveLength(0)
        expect((yield* Effect.flip(webhooks.sendTest(partnerId, endpoint.id)))._tag).toBe("EndpointNotFound")
      })
    )

    it.effect(
      "ids in upper case address the same endpoint and delivery; endpoints made at one instant list by id",
      () =>
        Effect.gen(function* () {
          const { webhooks, partnerId, endpoint } = yield* setup()
          const second = yield* webhooks.createEndpoint(partnerId, { url: newUrl() })
          const third = yield* webhooks.createEndpoint(partnerId, { url: newUrl() })
          // TestClock stands still: the three share their creation time, and the id breaks the tie.
          const listed = Effect.map(webhooks.listEndpoints(partnerId), (es) => es.map((e) => e.id))
          expect(yield* listed).toEqual([endpoint.id, second.id, third.id].sort())
          const { event } = yield* webhooks.sendTest(partnerId, upper(Ids.EndpointId, endpoint.id))
          expect(JSON.parse(event.payload).data).toEqual({ endpointId: endpoint.id })
          const d = yield* onlyDelivery(partnerId)
          expect(d.endpointId).toBe(endpoint.id)
          const filtered = yield* webhooks.listDeliveries(
            partnerId,
            { endpointId: upper(Ids.EndpointId, endpoint.id) },
            10,
            undefined
          )
          expect(filtered.deliveries.map((x) => x.id)).toEqual([d.id])
          yield* (yield* Simulation).runDue
          expect((yield* webhooks.replay(partnerId, upper(Ids.DeliveryId, d.id))).id).toBe(d.id)
          expect((yield* webhooks.rotateSecret(partnerId, upper(Ids.EndpointId, second.id))).previousSecret).toBe(
            second.secret
          )
          yield* webhooks.deleteEndpoint(partnerId, upper(Ids.EndpointId, third.id))
          expect(yield* listed).toEqual([endpoint.id, second.id].sort())
        })
    )

    it.effect("delivery log: newest first, filters, cursor pages that cover every row once", () =>
      Effect.gen(function* () {
        const { webhooks, partnerId, endpoint } = yield* setup()
        const other = yield* webhooks.createEndpoint(partnerId, { url: newUrl() })
        for (let i = 0; i < 7; i++) {
          yield* webhooks.sendTest(partnerId, i % 2 === 0 ? endpoint.id : other.id)
          yield* TestClock.adjust(1000)
        }
        const seen: Array<string> = []
        let cursor: string | undefined
        for (let page = 0; page < 10; page++) {
          const p = yield* webhooks.listDeliveries(partnerId, {}, 3, cursor)
          seen.push(...p.deliveries.map((d) => d.id))
          if (p.next === null) break
          cursor = Buffer.from(`${p.next.createdAt}:${p.next.id}`).toString("base64url")
        }
        expect(seen).toHaveLength(7)
        expect(new Set(seen).size).toBe(7)
        const all = yield* webhooks.listDeliveries(partnerId, {}, 100, undefined)
        expect(all.deliveries.map((d) => d.id)).toEqual(seen)
        const created = all.deliveries.map((d) => d.createdAt)
        expect([...created].sort((a, b) => b - a)).toEqual(created)
        const onFirst = yield* webhooks.listDeliveries(partnerId, { endpointId: endpoint.id }, 100, undefined)
        expect(onFirst.deliveries).toHaveLength(4)
        expect(
          (yield* webhooks.listDeliveries(partnerId, { status: "delivered" }, 100, undefined)).deliveries
        ).toHaveLength(0)
        expect((yield* Effect.flip(webhooks.listDeliveries(partnerId, {}, 3, "garbage")))._tag).toBe(
          "DeliveryCursorInvalid"
        )
        expect((yield* webhooks.listDeliveries(newPartner(), {}, 100, undefined)).deliveries).toHaveLength(0)
      })
    )

    it.effect("ledger events: deterministic ids, written once per business event, with the spec's data", () =>
      Effect.gen(function* () {
        const { partnerId, url } = yield* setup()
        const ledger = yield* Ledger.Ledger
        const sim = yield* Simulation
        const topup = yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 500_000, reference: "pay-42" })
        yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 500_000, reference: "pay-42" })
        yield* ledger.credit(partnerId, { kind: "bonus", amountMinor: 10_000 })
        yield* ledger.reserve(partnerId, { taskId: testTask("task-a"), amountMinor: 30_000 })
        const settled = yield* ledger.confirm(partnerId, { taskId: testTask("task-a"), amountMinor: 12_345 })
        yield* ledger.confirm(partnerId, { taskId: testTask("task-a"), amountMinor: 12_345 })
        yield* ledger.reserve(partnerId, { taskId: testTask("task-b"), amountMinor: 20_000 })
        const refunded = yield* ledger.refund(partnerId, { taskId: testTask("task-b") })
        yield* sim.runDue
        // Delivery order is not guaranteed (spec: at-least-once, deduplicate by eventId); compare by type.
        const bodies = (yield* receivedAt(url)).map((r) => JSON.parse(r.body))
        expect(bodies.map((b) => b.eventType).sort()).toEqual([
          "billing.refunded",
          "billing.settled",
          "billing.topup.confirmed"
        ])
        const byType = (type: string) => bodies.find((b) => b.eventType === type)
        const [t, s, r] = [byType("billing.topup.confirmed"), byType("billing.settled"), byType("billing.refunded")]
        expect(t).toMatchObject({
          eventId: Events.sourceEventId(partnerId, "billing.topup.confirmed", topup.entry.id),
          partnerId,
          schemaVersion: 1,
          data: { transactionId: topup.entry.id, paymentId: "pay-42", amountFranks: 5000 }
        })
        expect(s).toMatchObject({
          eventId: Events.sourceEventId(partnerId, "billing.settled", settled.hold.settlementEntryId ?? ""),
          data: { transactionId: settled.hold.settlementEntryId, taskId: "task-a", amountFranks: 123.45 }
        })
        expect(r).toMatchObject({
          data: { transactionId: refunded.hold.settlementEntryId, taskId: "task-b", amountFranks: 200 }
        })
        expect(new Date(t.occurredAt).getTime()).toBe(T0)
      })
    )

    it.effect("billing.low_balance: when available drops below 1,000 ₣, at most once per 24 h", () =>
      Effect.gen(function* () {
        const { partnerId, url } = yield* setup([], ["billing.low_balance"])
        const ledger = yield* Ledger.Ledger
        const sim = yield* Simulation
        yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 150_000 })
        yield* ledger.reserve(partnerId, { taskId: testTask("a"), amountMinor: 40_000 }) // 1,100 ₣ left: not low
        yield* ledger.reserve(partnerId, { taskId: testTask("b"), amountMinor: 20_000 }) // 900 ₣: low
        yield* ledger.reserve(partnerId, { taskId: testTask("c"), amountMinor: 10_000 }) // 800 ₣: low, within 24 h
        yield* sim.advance(24 * HOUR)
        yield* ledger.debit(partnerId, { amountMinor: 1_000 }) // a day later: again
        yield* sim.runDue
        const bodies = (yield* receivedAt(url)).map((r) => JSON.parse(r.body))
        expect(bodies.map((b) => [b.eventType, b.data.availableFranks, b.data.thresholdFranks])).toEqual([
          ["billing.low_balance", 900, 1000],
          ["billing.low_balance", 790, 1000]
        ])
        // Each emission has its own id.
        expect(bodies[0].eventId).not.toBe(bodies[1].eventId)
      })
    )

    it.effect(
      "the due backlog counts, across partners, what is due on endpoints not paused, and its oldest due time",
      () =>
        Effect.gen(function* () {
          const { webhooks, partnerId, endpoint } = yield* setup()
          const store = yield* DeliveryQueue
          const backlogAt = (now: number) => store.dueBacklog(now)
          // Other cases of this suite leave deliveries behind: every figure is relative to these.
          const [atT0, atT5] = [yield* backlogAt(T0), yield* backlogAt(T0 + 5 * MINUTE)]
          const other = newPartner()
          const paused = yield* webhooks.createEndpoint(other, { url: newUrl() })
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* webhooks.sendTest(other, paused.id)
          yield* webhooks.updateEndpoint(other, paused.id, { active: false })
          yield* TestClock.setTime(T0 + 5 * MINUTE)
          yield* webhooks.sendTest(partnerId, endpoint.id)
          // Due by T0: the first two; the paused endpoint's waits, the third is not due yet.
          expect(yield* backlogAt(T0)).toEqual({
            count: atT0.count + 2,
            oldestDueAt: Math.min(atT0.oldestDueAt ?? T0, T0)
          })
          expect((yield* backlogAt(T0 + 5 * MINUTE)).count).toBe(atT5.count + 3)
          yield* webhooks.updateEndpoint(other, paused.id, { active: true })
          expect((yield* backlogAt(T0)).count).toBe(atT0.count + 3)
          // Deleted endpoints take their pending deliveries with them.
          yield* webhooks.deleteEndpoint(partnerId, endpoint.id)
          yield* webhooks.deleteEndpoint(other, paused.id)
          expect(yield* backlogAt(T0)).toEqual(atT0)
          expect(yield* backlogAt(T0 + 5 * MINUTE)).toEqual(atT5)
        })
    )
  })
}
