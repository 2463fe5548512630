/**
 * Handlers of the billing group: balance, tariff, catalog, estimate. Platform-neutral.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Ledger } from "../../ledger/Ledger.js"
import { orApiError } from "../domainErrors.js"
import { PartnerApi } from "../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"

export const BillingHandlers = HttpApiBuilder.group(PartnerApi, "billing", (handlers) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    return handlers.handle("balance", () => Effect.flatMap(CurrentApiKey, ({ partnerId }) => orApiError(ledger.balance(partnerId))))
  })
)
