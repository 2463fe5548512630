/**
 * Ids from paths and queries, decoded once here. A malformed id names nothing, so it answers
 * exactly what a missing one does (`missing`), and no store ever sees it.
 */
import { Effect, Option, type Schema } from "effect"
import { parseId } from "../EntityIds.js"

/** Decodes a path id with its schema, or fails with the given error. */
export const idOr = <A, E>(schema: Schema.Schema<A, string>, raw: string, missing: () => E): Effect.Effect<A, E> =>
  Option.match(parseId(schema)(raw), { onNone: () => Effect.fail(missing()), onSome: Effect.succeed })
