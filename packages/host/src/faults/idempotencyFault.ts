/**
 * A test-only fault point for the crash test of stored answers (test/e2e/idempotency-crash):
 * with FRANK_FAULT_HANG_AFTER_IDEMPOTENT_SAVE=1 the host writes a request's answer and then hangs
 * before the transaction commits, after logging `fault point: idempotent answer saved, not
 * committed`, so the test can SIGKILL it between the writes and the commit. Not a setting: it is
 * read from the environment only here and documented nowhere an operator looks.
 */
import { Idempotency } from "@frank/core/http"
import { Effect, Layer } from "effect"

const FAULT_ENV = "FRANK_FAULT_HANG_AFTER_IDEMPOTENT_SAVE"

/** The idempotency store in context, hanging after each save when the fault point is on. */
export const withIdempotencyFault = <E, R>(
  store: Layer.Layer<Idempotency.IdempotencyStore, E, R>
): Layer.Layer<Idempotency.IdempotencyStore, E, R> =>
  process.env[FAULT_ENV] !== "1"
    ? store
    : Layer.effect(
        Idempotency.IdempotencyStore,
        Effect.map(Idempotency.IdempotencyStore, (s) => ({
          ...s,
          save: (request, answer, at) =>
            Effect.zipRight(
              s.save(request, answer, at),
              Effect.zipRight(Effect.logWarning("fault point: idempotent answer saved, not committed"), Effect.never)
            )
        }))
      ).pipe(Layer.provide(store))
