/**
 * The group middleware that claims a request's `Idempotency-Key` once authentication has named
 * its owner: every group of the partner API and the host's admin group carry it, and the platform
 * runs group middlewares after the endpoint's security middleware and before the payload is
 * decoded. It does nothing unless the API-level `IdempotencyLive` opened a keyed request; then it
 * scopes the key (the partner of the key or session; `admin:` and a digest of the admin token),
 * fingerprints method, path and body, and claims the key inside the request's transaction. A
 * replay or a refusal stops the handler; `IdempotencyLive` answers it.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Layer, Option } from "effect"
import { claimVerdict } from "../idempotency/claimRule.js"
import { requestFingerprint, sha256Hex } from "../idempotency/fingerprint.js"
import { CurrentApiKey, CurrentPartner, CurrentSession } from "./internal/Security.js"
import { refusal, replayed } from "./internal/idempotency/answers.js"
import { IdempotencyShortcut, KeyedRequest, type KeyedRequestState } from "./internal/idempotency/KeyedRequest.js"

/** Claims the current request's Idempotency-Key (see the module comment). */
export class IdempotencyClaim extends HttpApiMiddleware.Tag<IdempotencyClaim>()("IdempotencyClaim") {}

const bearerToken = (request: HttpServerRequest.HttpServerRequest): string => {
  const auth = request.headers.authorization
  return typeof auth === "string" ? auth.replace(/^bearer\s+/i, "").trim() : ""
}

/** Whose key it is: the authenticated partner, or the admin token; undefined when nobody is. */
const scopeOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const key = yield* Effect.serviceOption(CurrentApiKey)
    if (Option.isSome(key)) return `partner:${key.value.partnerId}`
    const session = yield* Effect.serviceOption(CurrentSession)
    if (Option.isSome(session)) return `partner:${session.value.partnerId}`
    // Routes open to a session or a key (PartnerAuth) name the partner only this way.
    const partner = yield* Effect.serviceOption(CurrentPartner)
    if (Option.isSome(partner)) return `partner:${partner.value.partnerId}`
    // The admin group's security accepted the bearer token before this runs.
    if (request.url.startsWith("/admin/") && bearerToken(request).length > 0)
      return `admin:${(yield* sha256Hex(bearerToken(request))).slice(0, 32)}`
    return undefined
  })

const claim = (state: KeyedRequestState) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const scope = yield* scopeOf(request)
    if (scope === undefined) return
    const body = yield* Effect.orDie(request.text)
    const fingerprint = yield* requestFingerprint(request.method, request.url, body)
    const verdict = claimVerdict(yield* Effect.orDie(state.store.claim(scope, state.key)), state.key, fingerprint)
    if (verdict._tag === "Run") {
      state.claimed = { scope, key: state.key, fingerprint }
      return
    }
    const path = request.url.split("?")[0] ?? request.url
    state.shortcut =
      verdict._tag === "Replay"
        ? replayed(verdict.answer)
        : refusal(
            path,
            verdict.error.status,
            verdict.error.code,
            verdict.error.message,
            verdict.error._tag === "IdempotencyRequestInProgress" ? { "retry-after": "1" } : {}
          )
    // Stops the handler; IdempotencyLive answers `shortcut` and rolls the transaction back.
    return yield* Effect.fail(new IdempotencyShortcut() as never)
  })

/** The claim middleware; needs nothing (the keyed request carries its store). */
export const IdempotencyClaimLive = Layer.succeed(
  IdempotencyClaim,
  Effect.flatMap(Effect.serviceOption(KeyedRequest), (state) =>
    Option.isSome(state) ? claim(state.value) : Effect.void
  )
)
