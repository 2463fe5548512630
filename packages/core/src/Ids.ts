/**
 * Identifier generation as a service: randomness stays at the edge, so simulations can swap in a
 * deterministic generator and replay a run exactly.
 */
import { Context, Effect, Layer } from "effect"
import { v4 as uuidv4, v5 as uuidv5 } from "uuid"

export class Ids extends Context.Tag("@frank/core/Ids")<
  Ids,
  {
    /** A fresh random identifier (UUID v4). */
    readonly next: Effect.Effect<string>
  }
>() {
  static readonly layer = Layer.succeed(Ids, { next: Effect.sync(() => uuidv4()) })

  /** Deterministic ids for simulations: UUID v5 of a counter under a seed namespace. */
  static readonly layerDeterministic = (seed = "frank-simulation") =>
    Layer.sync(Ids, () => {
      let counter = 0
      const namespace = uuidv5(seed, uuidv5.URL)
      return { next: Effect.sync(() => uuidv5(String(counter++), namespace)) }
    })
}

/** The namespace of Frank's name-based (v5) identifiers. */
export const FRANK_NAMESPACE = uuidv5("https://frank.dev/ids", uuidv5.URL)

/** A deterministic identifier for something derived from a source, e.g. an event id. */
export const derivedId = (name: string): string => uuidv5(name, FRANK_NAMESPACE)
