/**
 * What the campaign knows independently of the engine: the partners, the resources it created and
 * the changes it asked for. Operations pick their targets here; invariants compare the engine's
 * state with it.
 */
import type { Events, Ids } from "@frank/core"

export interface EndpointModel {
  readonly id: Ids.EndpointId
  readonly url: string
  /** null: every event type. */
  readonly eventTypes: ReadonlyArray<Events.EventType> | null
  active: boolean
  deleted: boolean
}

export interface PartnerModel {
  readonly id: Ids.PartnerId
  readonly index: number
  /** Task ids of holds the campaign reserved on the ledger directly. */
  readonly holds: Array<string>
  readonly tasks: Array<Ids.TaskId>
  readonly payments: Array<{
    readonly id: Ids.PaymentId
    readonly providerPaymentId: string
    readonly amountRub: number
  }>
  readonly invoices: Array<Ids.InvoiceId>
  readonly endpoints: Array<EndpointModel>
  readonly keys: Array<{ readonly id: Ids.KeyId; readonly raw: string; revoked: boolean }>
  profileRevision: number
  /** Idempotency references used by credits, to repeat some. */
  readonly references: Array<string>
  /** Balance alerts alive, and every alert's state when it was created. */
  readonly alerts: Array<string>
  readonly alertStart: Map<string, "ok" | "triggered">
  /** Idempotency-Keys whose credit ran: the amount it was sent with and the entry it made. */
  readonly keyed: Map<string, { readonly amountMinor: number; readonly entryId: string }>
}

/** An event the outbox wrote in an operation that succeeded, with the endpoints that must get it. */
export interface ExpectedEvent {
  readonly partnerId: string
  readonly eventId: string
  readonly type: string
  readonly endpointIds: ReadonlyArray<string>
}

export interface World {
  readonly seed: number
  readonly partners: Array<PartnerModel>
  readonly expected: Array<ExpectedEvent>
  readonly seenEvents: Set<string>
  /** Replays asked for, by `endpointId eventId`. */
  readonly replays: Map<string, number>
  /** `billing.balance_alert` events written by operations that succeeded, in order. */
  readonly alertEvents: Array<{ readonly alertId: string; readonly state: string }>
  /** What keyed operations saw that breaks "a key never runs twice" (checked with the step invariants). */
  readonly keyViolations: Array<string>
  counter: number
}

export const newWorld = (seed: number): World => ({
  seed,
  partners: [],
  expected: [],
  seenEvents: new Set(),
  replays: new Map(),
  alertEvents: [],
  keyViolations: [],
  counter: 0
})

export const allEndpoints = (world: World) => world.partners.flatMap((p) => p.endpoints)
