/**
 * The sandbox acquirer: a real `PaymentProvider` whose "outside world" lives in the host. It
 * keeps its own records (SandboxAcquirerStore), serves a checkout page URL for every payment, and
 * reports every status change as a signed notification that takes the same path a real
 * acquirer's callback takes: `PaymentProvider.parseNotification` → `Payments.applyNotification`.
 *
 * The payer acts on the checkout page (pay, decline); the operator acts through the admin API
 * (confirm, reject, cancel, fail). The acquirer applies the engine's own status rules to its
 * records, so it refuses what a real acquirer would (confirming a canceled payment).
 */
import { type Errors, Ids, Payments } from "@frank/core"
import { Clock, Context, Effect, Layer, type Redacted } from "effect"
import { type SandboxPayment, SandboxAcquirerStore } from "./SandboxAcquirerStore.js"
import * as SandboxNotification from "./sandboxNotification.js"

export interface SandboxAcquirerConfig {
  /** Base URL the payer's browser reaches the host at (FRANK_PUBLIC_BASE_URL); no trailing slash. */
  readonly baseUrl: string
  /** Key that signs the sandbox's notifications. */
  readonly secret: Redacted.Redacted<string>
}

/** What the payer (checkout page) or the operator (admin API) can do to a sandbox payment. */
export const SANDBOX_ACTIONS = ["pay", "decline", "confirm", "reject", "cancel", "fail"] as const
export type SandboxAction = (typeof SANDBOX_ACTIONS)[number]

/** The statuses an action walks through, each reported by its own notification. Paying is two-stage. */
const STEPS: Readonly<Record<SandboxAction, ReadonlyArray<Payments.PaymentStatus>>> = {
  pay: ["authorized", "confirmed"],
  decline: ["rejected"],
  confirm: ["confirmed"],
  reject: ["rejected"],
  cancel: ["canceled"],
  fail: ["failed"]
}

export const checkoutPath = (orderId: string) => `/sandbox/checkout/${orderId}`

export interface SandboxAcquirerShape {
  readonly find: (orderId: Ids.PaymentId) => Effect.Effect<SandboxPayment | undefined, Errors.StoreError>
  /**
   * Moves the acquirer's record through the action's statuses and answers the signed
   * notifications it sends, in order. A repeated status is notified again (acquirers resend); a
   * step already passed is not; a contradiction (confirming a canceled payment) is refused.
   */
  readonly act: (
    orderId: Ids.PaymentId,
    action: SandboxAction
  ) => Effect.Effect<
    ReadonlyArray<Payments.RawNotification>,
    Payments.PaymentNotFound | Payments.PaymentTransitionRefused | Errors.StoreError
  >
}

export class SandboxAcquirer extends Context.Tag("@frank/adapters/SandboxAcquirer")<
  SandboxAcquirer,
  SandboxAcquirerShape
>() {}

type StepResult =
  | { readonly _tag: "notify"; readonly payment: SandboxPayment }
  | { readonly _tag: "skip" }
  | { readonly _tag: "refused"; readonly status: Payments.PaymentStatus }

/** The acquirer's control handle and the PaymentProvider it implements. */
export const make = (config: SandboxAcquirerConfig) =>
  Effect.gen(function* () {
    const store = yield* SandboxAcquirerStore
    const ids = yield* Ids.Ids

    const notice = (p: SandboxPayment) =>
      SandboxNotification.encode(config.secret, {
        orderId: p.orderId,
        paymentId: p.id,
        status: p.status,
        amountRub: p.amountRub
      })

    const step = (orderId: Ids.PaymentId, status: Payments.PaymentStatus, now: number) =>
      store.modify(orderId, (current): { next: SandboxPayment | undefined; result: StepResult } => {
        const t = Payments.paymentTransition(current.status, status)
        switch (t._tag) {
          case "Moved": {
            const next = { ...current, status, updatedAt: now }
            return { next, result: { _tag: "notify", payment: next } }
          }
          case "Unchanged":
            return {
              next: undefined,
              result: t.reason === "repeated" ? { _tag: "notify", payment: current } : { _tag: "skip" }
            }
          case "Refused":
            return { next: undefined, result: { _tag: "refused", status: current.status } }
        }
      })

    const acquirer: SandboxAcquirerShape = {
      find: store.find,
      act: (orderId, action) =>
        Effect.gen(function* () {
          const sent: Payments.RawNotification[] = []
          for (const status of STEPS[action]) {
            const r = yield* step(orderId, status, yield* Clock.currentTimeMillis)
            if (r === undefined)
              return yield* new Payments.PaymentNotFound({ message: `the sandbox acquirer has no payment ${orderId}` })
            if (r._tag === "refused")
              return yield* new Payments.PaymentTransitionRefused({
                message: `the payment is ${r.status}; the sandbox acquirer cannot ${action} it`
              })
            if (r._tag === "notify") sent.push(notice(r.payment))
          }
          return sent
        })
    }

    const unavailable = (what: string) => (cause: Errors.StoreError) =>
      new Payments.PaymentProviderError({ message: `sandbox acquirer: ${what} failed`, cause })

    const provider: Payments.PaymentProviderShape = {
      name: "sandbox",
      createPayment: (request) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const stored = yield* store.open({
            partnerId: request.partnerId,
            orderId: request.paymentId,
            id: `sbx_${(yield* ids.next).replaceAll("-", "")}`,
            amountRub: request.amountRub,
            description: request.description,
            status: "pending",
            createdAt: now,
            updatedAt: now
          })
          return { providerPaymentId: stored.id, paymentUrl: `${config.baseUrl}${checkoutPath(stored.orderId)}` }
        }).pipe(Effect.mapError(unavailable("createPayment"))),
      readStatus: ({ paymentId }) =>
        Effect.gen(function* () {
          const found = yield* store.find(paymentId).pipe(Effect.mapError(unavailable("readStatus")))
          if (found === undefined)
            return yield* new Payments.PaymentProviderError({ message: `sandbox acquirer: no payment ${paymentId}` })
          return found.status
        }),
      parseNotification: (raw) => SandboxNotification.decode(config.secret, raw)
    }
    return { acquirer, provider }
  })

/**
 * The sandbox acquirer and the PaymentProvider it implements, over one record store. Needs
 * SandboxAcquirerStore and Ids.
 */
export const layer = (config: SandboxAcquirerConfig) =>
  Layer.effectContext(
    Effect.map(make(config), ({ acquirer, provider }) =>
      Context.make(SandboxAcquirer, acquirer).pipe(Context.add(Payments.PaymentProvider, provider))
    )
  )

/**
 * The payer's or the operator's action, end to end: the acquirer moves its record and every
 * notification it sends is received by the engine exactly as an HTTP callback would be. Answers
 * the engine's outcome of the last notification (the payment as the engine now sees it).
 */
export const drive = (orderId: Ids.PaymentId, action: SandboxAction) =>
  Effect.gen(function* () {
    const acquirer = yield* SandboxAcquirer
    const payments = yield* Payments.Payments
    const notifications = yield* acquirer.act(orderId, action)
    let last: Payments.NotificationOutcome | undefined
    for (const raw of notifications) last = yield* payments.receiveNotification(raw)
    // Every action ends on a final status, which is either notified or refused above.
    if (last === undefined)
      return yield* Effect.dieMessage(`sandbox action ${action} on ${orderId} sent no notification`)
    return last
  })
