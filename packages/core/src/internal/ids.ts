/**
 * Identifier generation as a service: randomness stays at the edge, so simulations can swap in a
 * deterministic generator and replay a run exactly.
 */
import { Context, Effect, Layer } from "effect"
import { v4 as uuidv4, v5 as uuidv5 } from "uuid"
import type {
  DeliveryId,
  EndpointId,
  InvoiceId,
  KeyId,
  PartnerId,
  PaymentId,
  StoredFileId,
  TaskId
} from "../EntityIds.js"

/** The schema of one entity id (EntityIds.ts): what `Ids.nextId` can issue. */
export type EntityIdKind =
  | typeof PartnerId
  | typeof KeyId
  | typeof EndpointId
  | typeof DeliveryId
  | typeof TaskId
  | typeof InvoiceId
  | typeof PaymentId
  | typeof StoredFileId

/** What the `Ids` service offers: fresh ids, plain or branded. */
export interface IdsShape {
  /** A fresh random identifier (UUID v4). */
  readonly next: Effect.Effect<string>
  /** A fresh id of the entity `kind` names, already branded: `ids.nextId(EndpointId)`. */
  readonly nextId: <K extends EntityIdKind>(kind: K) => Effect.Effect<K["Type"]>
}

/**
 * The service over a generator of lowercase UUIDs. Every entity brand holds exactly such a string,
 * so the brand is given here, once, instead of cast at each call site.
 */
const fromUuids = (next: Effect.Effect<string>): IdsShape => ({
  next,
  nextId: <K extends EntityIdKind>(_kind: K) => next as Effect.Effect<K["Type"]>
})

/** The id generator service: random UUIDs in production, deterministic ones in simulations. */
export class Ids extends Context.Tag("@frank/core/Ids")<Ids, IdsShape>() {
  static readonly layer = Layer.succeed(Ids, fromUuids(Effect.sync(() => uuidv4())))

  /** Deterministic ids for simulations: UUID v5 of a counter under a seed namespace. */
  static readonly layerDeterministic = (seed = "frank-simulation") =>
    Layer.sync(Ids, () => {
      let counter = 0
      const namespace = uuidv5(seed, uuidv5.URL)
      return fromUuids(Effect.sync(() => uuidv5(String(counter++), namespace)))
    })
}

/** The namespace of Frank's name-based (v5) identifiers. */
const FRANK_NAMESPACE = uuidv5("https://frank.dev/ids", uuidv5.URL)

/** A deterministic identifier for something derived from a source, e.g. an event id. */
export const derivedId = (name: string): string => uuidv5(name, FRANK_NAMESPACE)
