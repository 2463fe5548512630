/**
 * What the campaign knows independently of the engine: the partners, the resources it created and
 * the changes it asked for. Operations pick their targets here; invariants compare the engine's
 * state with it.
 */
import type { EndpointId, EventType, InvoiceId, KeyId, PartnerId, PaymentId, TaskId } from "@frank/core"

export interface EndpointModel {
  readonly id: EndpointId
  readonly url: string
  /** null: every event type. */
  readonly eventTypes: ReadonlyArray<EventType> | null
  active: boolean
  deleted: boolean
}

export interface PartnerModel {
  readonly id: PartnerId
  readonly index: number
  /** Task ids of holds the campaign reserved on the ledger directly. */
  readonly holds: Array<string>
  readonly tasks: Array<TaskId>
  readonly payments: Array<{ readonly id: PaymentId; readonly providerPaymentId: string; readonly amountRub: number }>
  readonly invoices: Array<InvoiceId>
  readonly endpoints: Array<EndpointModel>
  readonly keys: Array<{ readonly id: KeyId; readonly raw: string; revoked: boolean }>
  profileRevision: number
  /** Idempotency references used by credits, to repeat some. */
  readonly references: Array<string>
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
  counter: number
}

export const newWorld = (seed: number): World => ({
  seed,
  partners: [],
  expected: [],
  seenEvents: new Set(),
  replays: new Map(),
  counter: 0
})

export const allEndpoints = (world: World) => world.partners.flatMap((p) => p.endpoints)
