/**
 * Handlers of the API-key group: listing with a key, issue / change / revoke from the cabinet.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Access } from "../../../access/Access.js"
import { ApiKeyNotFound } from "../../../access/AccessError.js"
import { KeyId, parseId } from "../../../EntityIds.js"
import { orApiError } from "../../errors/domainErrors.js"
import { idOr } from "../../pathIds.js"
import { PartnerApi } from "../../PartnerApi.js"
import { routeTable, scopeReference } from "../../routeTable.js"
import { CurrentApiKey, CurrentSession } from "../Security.js"

export const KeysHandlers = HttpApiBuilder.group(PartnerApi, "keys", (handlers) =>
  Effect.gen(function* () {
    const access = yield* Access
    const reference = scopeReference(routeTable(PartnerApi))
    // Revoking is idempotent and a foreign id matches nothing without an error; so does a malformed one.
    const revoke = (raw: string, reason: string | undefined) =>
      Effect.flatMap(CurrentSession, ({ partnerId }) =>
        Option.match(parseId(KeyId)(raw), {
          onNone: () => Effect.succeed({ id: raw, revoked: false }),
          onSome: (id) =>
            Effect.map(orApiError(access.revokeKey(partnerId, id, reason)), (found) => ({ id: raw, revoked: found }))
        })
      )
    return handlers
      .handle("list", () =>
        Effect.gen(function* () {
          const caller = yield* CurrentApiKey
          const viewer = caller.access === "restricted" ? { restrictedKeyId: caller.keyId } : {}
          return { items: yield* orApiError(access.listKeys(caller.partnerId, viewer)) }
        })
      )
      .handle("issue", ({ payload }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentSession
          const issued = yield* orApiError(access.issueKey(partnerId, payload))
          return { ...issued.view, key: issued.raw }
        })
      )
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentSession, ({ partnerId }) =>
          orApiError(
            Effect.flatMap(
              idOr(KeyId, path.id, () => new ApiKeyNotFound({ message: `no API key ${path.id}` })),
              (id) => access.changeKey(partnerId, id, payload)
            )
          )
        )
      )
      .handle("revoke", ({ path }) => revoke(path.id, undefined))
      .handle("revokeWithReason", ({ path, urlParams }) => revoke(path.id, urlParams.reason))
      .handle("operations", () => Effect.succeed(reference))
  })
)
