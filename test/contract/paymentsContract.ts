/**
 * The top-up contract: the same cases against every store set (memory, PGlite, Postgres), with
 * the engine's real services and the sandbox acquirer as the PaymentProvider. It covers link
 * idempotency (also under 20 concurrent requests), the notification path and its state machine
 * (duplicated, reordered and concurrent confirmations credit once; a confirmation after a cancel
 * is refused), the atomicity of status and credit, the event, history and tenancy.
 */
import { randomUUID as uuid } from "node:crypto"
import { SandboxAcquirer, type SandboxAcquirerStore, SandboxNotification } from "@frank/adapters"
import { expect, layer } from "@effect/vitest"
import { Access, Events, Ids, Ledger, Payments, Webhooks } from "@frank/core"
import type { EngineStores } from "@frank/core/testing"
import { Effect, Layer, Option, Redacted } from "effect"
import { testPartner } from "@frank/core/testing"
import type { PaymentStore } from "@frank/core/stores"

const SANDBOX_SECRET = Redacted.make("contract-sandbox-secret")
const BASE_URL = "https://frank.test"

export type PaymentStores = EngineStores | PaymentStore | SandboxAcquirerStore

/** The engine as the host wires it, on the given stores. */
export const paymentsEngine = <E>(stores: Layer.Layer<PaymentStores, E>) => {
  const base = Layer.mergeAll(
    Ids.Ids.layer,
    Access.Secrets.layer(Redacted.make("contract-pepper")),
    Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true })
  )
  return Layer.mergeAll(Payments.Payments.layer, Webhooks.Webhooks.layer).pipe(
    Layer.provideMerge(Ledger.Ledger.layer),
    Layer.provideMerge(SandboxAcquirer.layer({ baseUrl: BASE_URL, secret: SANDBOX_SECRET })),
    Layer.provideMerge(Events.Outbox.layerWithWakeup),
    Layer.provideMerge(stores),
    Layer.provideMerge(base)
  )
}

const newPartner = () => testPartner(`p_${uuid()}`)

const link = (partnerId: Ids.PartnerId, amountRub: number, idempotencyKey: string = uuid(), description?: string) =>
  Effect.flatMap(Payments.Payments, (p) => p.createLink(partnerId, { amountRub, idempotencyKey, description }))

/** A signed sandbox notification for this payment, as the acquirer would send it. */
const notice = (p: Payments.Payment, status: Payments.PaymentStatus, amountRub = p.amountRub) =>
  SandboxNotification.encode(SANDBOX_SECRET, { orderId: p.id, paymentId: p.providerPaymentId ?? "", status, amountRub })

const receive = (raw: ReturnType<typeof notice>) => Effect.flatMap(Payments.Payments, (p) => p.receiveNotification(raw))

const totalFranks = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Ledger.Ledger, (l) => Effect.map(l.balance(partnerId), (b) => b.total))

const topupEntries = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Ledger.Ledger, (l) =>
    Effect.map(l.listEntries(partnerId, { type: "topup" }, 0, 100), (page) => page.items)
  )

const statusOf = (partnerId: Ids.PartnerId, id: Ids.PaymentId) =>
  Effect.flatMap(Payments.Payments, (p) => Effect.map(p.get(partnerId, id), (x) => x.status))

export const paymentsContract = <E>(engine: string, stores: Layer.Layer<PaymentStores, E>) => {
  layer(paymentsEngine(stores), { timeout: 120_000 })(`top-ups on ${engine}`, (it) => {
    it.effect(
      "a link is a pending payment with the sandbox checkout URL; the same key and amount answer it again; another amount is 409",
      () =>
        Effect.gen(function* () {
          const partnerId = newPartner()
          const first = yield* link(partnerId, 1500, "key-1", "Пополнение для теста")
          expect(first.replayed).toBe(false)
          expect(first.payment).toMatchObject({
            partnerId,
            amountRub: 1500,
            description: "Пополнение для теста",
            idempotencyKey: "key-1",
            status: "pending"
          })
          expect(first.payment.paymentUrl).toBe(`${BASE_URL}/sandbox/checkout/${first.payment.id}`)
          expect(first.payment.providerPaymentId).toMatch(/^sbx_[0-9a-f]{32}$/)

          const again = yield* link(partnerId, 1500, "key-1")
          expect(again.replayed).toBe(true)
          expect(again.payment.id).toBe(first.payment.id)
          expect(again.payment.paymentUrl).toBe(first.payment.paymentUrl)

          const conflict = yield* Effect.flip(link(partnerId, 1501, "key-1"))
          expect(conflict).toBeInstanceOf(Payments.PaymentIdempotencyConflict)
          expect(conflict).toMatchObject({ code: "PAYMENT_IDEMPOTENCY_CONFLICT", status: 409 })

          // Keys belong to their partner: another partner's same key is another payment.
          const other = yield* link(newPartner(), 1500, "key-1")
          expect(other.replayed).toBe(false)
          expect(other.payment.id).not.toBe(first.payment.id)
        })
    )

    it.effect("20 concurrent link requests with one key and amount create one payment", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const results = yield* Effect.all(
          Array.from({ length: 20 }, () => link(partnerId, 700, "retry-storm")),
          { concurrency: "unbounded" }
        )
        expect(new Set(results.map((r) => r.payment.id)).size).toBe(1)
        expect(new Set(results.map((r) => r.payment.paymentUrl)).size).toBe(1)
        expect(results.every((r) => r.payment.paymentUrl !== null)).toBe(true)
        expect(results.filter((r) => !r.replayed)).toHaveLength(1)
        const history = yield* Effect.flatMap(Payments.Payments, (p) => p.history(partnerId))
        expect(history).toHaveLength(1)
        // The acquirer also holds exactly that one payment.
        const acquirer = yield* SandboxAcquirer.SandboxAcquirer
        expect((yield* acquirer.find(history[0]!.id))?.id).toBe(history[0]!.providerPaymentId)
      })
    )

    it.effect("invalid links are refused with every problem at once", () =>
      Effect.gen(function* () {
        const e = yield* Effect.flip(
          Effect.flatMap(Payments.Payments, (p) =>
            p.createLink(newPartner(), { amountRub: 100_001, description: "x".repeat(141), idempotencyKey: "" })
          )
        )
        expect(e).toBeInstanceOf(Payments.PaymentRequestInvalid)
        expect((e as Payments.PaymentRequestInvalid).messages).toHaveLength(3)
        const zero = yield* Effect.flip(link(newPartner(), 0))
        expect(zero).toBeInstanceOf(Payments.PaymentRequestInvalid)
        const fraction = yield* Effect.flip(link(newPartner(), 10.5))
        expect(fraction).toBeInstanceOf(Payments.PaymentRequestInvalid)
      })
    )

    it.effect(
      "paying through the acquirer: authorized, then confirmed; the ledger is credited once, 1 RUB = 1 ₣, personal, with the event",
      () =>
        Effect.gen(function* () {
          const partnerId = newPartner()
          const webhooks = yield* Webhooks.Webhooks
          yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/hook" })
          const { payment } = yield* link(partnerId, 2500)
          const acquirer = yield* SandboxAcquirer.SandboxAcquirer
          const sent = yield* acquirer.act(payment.id, "pay")
          expect(sent).toHaveLength(2)
          const outcomes = []
          for (const raw of sent) outcomes.push(yield* receive(raw))
          expect(outcomes.map((o) => o.payment.status)).toEqual(["authorized", "confirmed"])
          expect(outcomes[0]!.transactionId).toBeNull()
          const transactionId = outcomes[1]!.transactionId
          expect(transactionId).not.toBeNull()

          expect(yield* totalFranks(partnerId)).toBe(2500)
          const entries = yield* topupEntries(partnerId)
          expect(entries).toHaveLength(1)
          expect(entries[0]).toMatchObject({
            id: transactionId,
            kind: "topup",
            amountMinor: 250_000,
            attribution: "personal",
            reference: payment.id
          })

          const page = yield* webhooks.listDeliveries(partnerId, {}, 10, undefined)
          expect(page.deliveries.map((d) => d.eventType)).toEqual(["billing.topup.confirmed"])
        })
    )

    it.effect("duplicated confirmations credit once", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const { payment } = yield* link(partnerId, 300)
        const confirmed = notice(payment, "confirmed")
        const first = yield* receive(confirmed)
        const second = yield* receive(confirmed)
        const third = yield* receive(notice(payment, "confirmed"))
        expect(first.transition._tag).toBe("Moved")
        expect(first.transactionId).not.toBeNull()
        expect([second.transition, third.transition]).toEqual([
          { _tag: "Unchanged", status: "confirmed", reason: "repeated" },
          { _tag: "Unchanged", status: "confirmed", reason: "repeated" }
        ])
        expect([second.transactionId, third.transactionId]).toEqual([null, null])
        expect(yield* totalFranks(partnerId)).toBe(300)
        expect(yield* topupEntries(partnerId)).toHaveLength(1)
      })
    )

    it.effect("reordered notifications: an authorization arriving after the confirmation changes nothing", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const { payment } = yield* link(partnerId, 400)
        yield* receive(notice(payment, "confirmed"))
        const late = yield* receive(notice(payment, "authorized"))
        expect(late.transition).toEqual({ _tag: "Unchanged", status: "confirmed", reason: "stale" })
        const pendingLate = yield* receive(notice(payment, "pending"))
        expect(pendingLate.transition._tag).toBe("Unchanged")
        expect(yield* statusOf(partnerId, payment.id)).toBe("confirmed")
        expect(yield* totalFranks(partnerId)).toBe(400)
        expect(yield* topupEntries(partnerId)).toHaveLength(1)
      })
    )

    it.effect("concurrent confirmations credit once", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const { payment } = yield* link(partnerId, 999)
        const outcomes = yield* Effect.all(
          Array.from({ length: 12 }, (_, i) => receive(notice(payment, i % 3 === 0 ? "authorized" : "confirmed"))),
          { concurrency: "unbounded" }
        )
        expect(outcomes.filter((o) => o.transactionId !== null)).toHaveLength(1)
        expect(yield* statusOf(partnerId, payment.id)).toBe("confirmed")
        expect(yield* totalFranks(partnerId)).toBe(999)
        expect(yield* topupEntries(partnerId)).toHaveLength(1)
      })
    )

    it.effect("a confirmation after a cancel is refused by the state machine and credits nothing", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const { payment } = yield* link(partnerId, 5000)
        yield* receive(notice(payment, "authorized"))
        const canceled = yield* receive(notice(payment, "canceled"))
        expect(canceled.payment.status).toBe("canceled")
        const confirm = yield* receive(notice(payment, "confirmed"))
        expect(confirm.transition).toEqual({
          _tag: "Refused",
          status: "canceled",
          reported: "confirmed",
          reason: "final"
        })
        expect(confirm.transactionId).toBeNull()
        expect(yield* statusOf(partnerId, payment.id)).toBe("canceled")
        expect(yield* totalFranks(partnerId)).toBe(0)
        expect(yield* topupEntries(partnerId)).toHaveLength(0)

        // The sandbox acquirer keeps the same rules for its own records: it refuses to confirm.
        const acquirer = yield* SandboxAcquirer.SandboxAcquirer
        expect(yield* acquirer.act(payment.id, "cancel")).toHaveLength(1)
        const refused = yield* Effect.flip(acquirer.act(payment.id, "confirm"))
        expect(refused).toBeInstanceOf(Payments.PaymentTransitionRefused)
      })
    )

    it.effect("notifications that are not authentic or do not fit the payment are refused and change nothing", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const { payment } = yield* link(partnerId, 100)
        const genuine = notice(payment, "confirmed")
        const forged = {
          ...genuine,
          headers: { ...genuine.headers, "x-sandbox-signature": `sha256=${"0".repeat(64)}` }
        }
        const unsigned = { body: genuine.body, headers: {} }
        const tampered = { ...genuine, body: genuine.body.replace('"Amount":10000', '"Amount":99990000') }
        for (const raw of [forged, unsigned, tampered])
          expect(yield* Effect.flip(receive(raw))).toBeInstanceOf(Payments.PaymentNotificationInvalid)
        // Correctly signed, but the amount or the acquirer's id is not this payment's.
        expect(yield* Effect.flip(receive(notice(payment, "confirmed", 101)))).toBeInstanceOf(
          Payments.PaymentNotificationInvalid
        )
        const otherId = SandboxNotification.encode(SANDBOX_SECRET, {
          orderId: payment.id,
          paymentId: "sbx_other",
          status: "confirmed",
          amountRub: 100
        })
        expect(yield* Effect.flip(receive(otherId))).toBeInstanceOf(Payments.PaymentNotificationInvalid)
        // Unknown payment.
        const unknown = SandboxNotification.encode(SANDBOX_SECRET, {
          orderId: uuid(),
          paymentId: "sbx_x",
          status: "confirmed",
          amountRub: 100
        })
        expect(yield* Effect.flip(receive(unknown))).toBeInstanceOf(Payments.PaymentNotFound)
        expect(yield* statusOf(partnerId, payment.id)).toBe("pending")
        expect(yield* totalFranks(partnerId)).toBe(0)
      })
    )

    it.effect("status and credit are one transaction: when the credit is refused, the payment stays unconfirmed", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const { payment } = yield* link(partnerId, 800)
        yield* receive(notice(payment, "authorized"))
        // Something else already used the payment id as a ledger reference: the top-up credit conflicts.
        const ledger = yield* Ledger.Ledger
        yield* ledger.credit(partnerId, { kind: "bonus", amountMinor: 100, reference: payment.id })
        const failed = yield* Effect.flip(receive(notice(payment, "confirmed")))
        expect(failed).toBeInstanceOf(Ledger.ReferenceConflict)
        expect(yield* statusOf(partnerId, payment.id)).toBe("authorized")
        expect(yield* totalFranks(partnerId)).toBe(1)
        expect(yield* topupEntries(partnerId)).toHaveLength(1)
      })
    )

    it.effect("refresh reads the acquirer's status: a lost notification is recovered, once", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const { payment } = yield* link(partnerId, 1200)
        const acquirer = yield* SandboxAcquirer.SandboxAcquirer
        yield* acquirer.act(payment.id, "confirm") // notifications dropped on the floor
        expect(yield* statusOf(partnerId, payment.id)).toBe("pending")
        const payments = yield* Payments.Payments
        const refreshed = yield* payments.refresh(partnerId, payment.id)
        expect(refreshed.payment.status).toBe("confirmed")
        expect(refreshed.transactionId).not.toBeNull()
        const again = yield* payments.refresh(partnerId, payment.id)
        expect(again.transactionId).toBeNull()
        expect(yield* totalFranks(partnerId)).toBe(1200)
      })
    )

    it.effect("history: the partner's last 50 payments, newest first; a foreign id behaves like a missing one", () =>
      Effect.gen(function* () {
        const partnerId = newPartner()
        const created: Payments.Payment[] = []
        for (let i = 0; i < 52; i++) created.push((yield* link(partnerId, i + 1, `k-${i}`)).payment)
        const payments = yield* Payments.Payments
        const history = yield* payments.history(partnerId)
        expect(history).toHaveLength(50)
        expect(history.map((p) => p.id)).toEqual(
          created
            .slice(2)
            .reverse()
            .map((p) => p.id)
        )

        const stranger = newPartner()
        expect(yield* payments.history(stranger)).toHaveLength(0)
        expect(yield* Effect.flip(payments.get(stranger, created[0]!.id))).toBeInstanceOf(Payments.PaymentNotFound)
        // A malformed id names no payment: decoded at the edge, it never reaches the service.
        expect(Ids.parseId(Ids.PaymentId)("not-a-uuid")).toEqual(Option.none())
        expect(yield* Effect.flip(payments.refresh(stranger, created[0]!.id))).toBeInstanceOf(Payments.PaymentNotFound)
      })
    )
  })
}
