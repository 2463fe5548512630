/**
 * Handlers of the API-key group: listing with a key, issue / change / revoke from the cabinet.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Access } from "../../access/Access.js"
import { orApiError } from "../domainErrors.js"
import { PartnerApi } from "../PartnerApi.js"
import { routeTable, scopeReference } from "../routeTable.js"
import { CurrentApiKey, CurrentSession } from "../Security.js"

export const KeysHandlers = HttpApiBuilder.group(PartnerApi, "keys", (handlers) =>
  Effect.gen(function* () {
    const access = yield* Access
    const reference = scopeReference(routeTable(PartnerApi))
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
        Effect.flatMap(CurrentSession, ({ partnerId }) => orApiError(access.changeKey(partnerId, path.id, payload)))
      )
      .handle("revoke", ({ path }) =>
        Effect.flatMap(CurrentSession, ({ partnerId }) =>
          Effect.map(orApiError(access.revokeKey(partnerId, path.id)), (found) => ({ id: path.id, revoked: found }))
        )
      )
      .handle("revokeWithReason", ({ path, urlParams }) =>
        Effect.flatMap(CurrentSession, ({ partnerId }) =>
          Effect.map(orApiError(access.revokeKey(partnerId, path.id, urlParams.reason)), (found) => ({
            id: path.id,
            revoked: found
          }))
        )
      )
      .handle("operations", () => Effect.succeed(reference))
  })
)
