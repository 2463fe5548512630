/**
 * `GET /v1/auth/check`: tells an automation tool whose key it holds and what the key may do.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { allScopes } from "../../../access/Scope.js"
import { PartnerApi } from "../../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"

export const AuthHandlers = HttpApiBuilder.group(PartnerApi, "auth", (handlers) =>
  handlers.handle("check", () =>
    Effect.map(CurrentApiKey, (k) => ({
      ok: true as const,
      partnerId: k.partnerId,
      keyId: k.keyId,
      access: k.access,
      scopes: k.access === "full" ? allScopes : k.scopes
    }))
  )
)
