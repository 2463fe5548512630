/**
 * `Idempotency-Key` on every change of the API it is added to (POST, PUT, PATCH, DELETE): an
 * API-level middleware that runs the request inside one `IdempotencyStore` transaction, which the
 * engine's stores join, and provides the keyed request to `IdempotencyClaim` (the group
 * middleware that claims the key after authentication). The answer is stored in that transaction
 * when the operation ran; any other outcome rolls it back, so a crash or a failure leaves neither
 * a change without its stored answer nor an answer without its change.
 *
 * The two routes whose keys the spec defines itself (payment links, task launches) keep their own
 * rules and are passed through untouched. Needs `IdempotencyStore`; wakes the outbox after a
 * commit (the engine's services skip their wake inside a caller's transaction).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Context, Effect, Exit, Option } from "effect"
import type { StoreError } from "../StoreError.js"
import { Outbox } from "../events/Outbox.js"
import { CurrentIdempotencyKey } from "../idempotency/CurrentIdempotencyKey.js"
import { idempotencyKeyProblem } from "../idempotency/IdempotencyKey.js"
import { IdempotencyStore, type IdempotencyStoreShape } from "../idempotency/IdempotencyStore.js"
import { answerOf, refusal } from "./internal/idempotency/answers.js"
import { KeyedRequest, KeyedRequestState } from "./internal/idempotency/KeyedRequest.js"
import { SPEC_KEYED_ROUTES } from "./internal/idempotency/specKeyedRoutes.js"
import { PartnerApi } from "./PartnerApi.js"
import { routeMatcher } from "./routeMatcher.js"

const CHANGES = new Set(["POST", "PUT", "PATCH", "DELETE"])

export { SPEC_KEYED_ROUTES }

const specKeyed = routeMatcher(PartnerApi, (e) => SPEC_KEYED_ROUTES.includes(`${e.method} ${e.path}`))

/** Carries an outcome out of the transaction it must not commit. */
class RolledBack {
  constructor(readonly exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>) {}
}

type Outcome = Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>

const serveKeyed = <E, R>(
  store: IdempotencyStoreShape,
  wake: Effect.Effect<void>,
  state: KeyedRequestState,
  path: string,
  app: HttpApp.Default<E, R>
): HttpApp.Default<E, R> => {
  const current = { key: state.key, scope: () => state.claimed?.scope }
  const served: Effect.Effect<Outcome, RolledBack | StoreError, R | HttpServerRequest.HttpServerRequest> = Effect.gen(
    function* () {
      const exit: Outcome = yield* app.pipe(
        Effect.provideService(KeyedRequest, state),
        Effect.provideService(CurrentIdempotencyKey, current),
        Effect.exit
      )
      if (state.shortcut !== undefined) return yield* Effect.fail(new RolledBack(Exit.succeed(state.shortcut)))
      if (state.claimed === undefined) return exit
      const answer = answerOf(path, exit)
      if (answer === undefined) return yield* Effect.fail(new RolledBack(exit))
      yield* store.save(state.claimed, answer, yield* Clock.currentTimeMillis)
      return exit
    }
  )
  return store.transaction(served).pipe(
    Effect.tap(() => (state.claimed === undefined ? Effect.void : wake)),
    Effect.catchAll((e) => (e instanceof RolledBack ? Effect.succeed(e.exit) : Effect.die(e))),
    // The outcome is the app's own, so its failure has the app's error type.
    Effect.flatMap((exit) => exit as Exit.Exit<HttpServerResponse.HttpServerResponse, E>)
  )
}

/** The API-level idempotency middleware (see the module comment); needs `IdempotencyStore`. */
export const IdempotencyLive = HttpApiBuilder.middleware(
  PartnerApi,
  Effect.gen(function* () {
    const store = yield* IdempotencyStore
    const outbox = yield* Effect.serviceOption(Outbox)
    const wake = Option.match(outbox, { onNone: () => Effect.void, onSome: (o) => o.wake })
    return <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
      Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>(
        (fiber) => {
          const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
          const raw = request.headers["idempotency-key"]
          if (raw === undefined || !CHANGES.has(request.method)) return app
          const path = request.url.split("?")[0] ?? request.url
          if (specKeyed(request.method, path) !== undefined) return app
          const problem = idempotencyKeyProblem(raw)
          if (problem !== undefined) return Effect.succeed(refusal(path, 400, "IDEMPOTENCY_KEY_INVALID", problem))
          return serveKeyed(store, wake, new KeyedRequestState(raw, store), path, app)
        }
      )
  })
)
