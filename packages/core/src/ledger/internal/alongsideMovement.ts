/**
 * Writes that commit inside the next money movement's own transaction, after its decision is
 * written: a wrapper (the audit log's) records a credit in the credit's transaction instead of
 * opening one around it, which would turn the movement's transaction into a savepoint and cost
 * two more round trips (docs/performance.md, issue 33).
 */
import { Effect, FiberRef } from "effect"
import type { StoreError } from "../../StoreError.js"

type Alongside = (result: unknown) => Effect.Effect<void, StoreError>

/** The write the movement run under it makes alongside (none outside `alongsideMovement`). */
export const currentAlongside: FiberRef.FiberRef<Alongside | undefined> = FiberRef.unsafeMake<Alongside | undefined>(
  undefined
)

/**
 * Runs `movement` (one ledger command) with `write` of its result in the same transaction: both
 * commit or neither does. A movement that fails writes nothing, `write` included.
 */
export const alongsideMovement =
  <A>(write: (result: A) => Effect.Effect<void, StoreError>) =>
  <E, R>(movement: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(movement, currentAlongside, write as Alongside)
