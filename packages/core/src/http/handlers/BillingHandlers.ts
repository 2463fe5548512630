/**
 * Handlers of the billing group: balance, tariff, catalog, estimate. Platform-neutral.
 */
import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import { Ledger } from "../../ledger/Ledger.js"
import { Pricing } from "../../pricing/Pricing.js"
import { tokenizerReady } from "../../pricing/tokens.js"
import { Tariffs } from "../../tariff/Tariffs.js"
import { orApiError, toApiError } from "../domainErrors.js"
import { PartnerApi } from "../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"

const noStore = HttpApp.appendPreResponseHandler((_req, res) =>
  Effect.succeed(HttpServerResponse.setHeader(res, "cache-control", "no-store"))
)

export const BillingHandlers = HttpApiBuilder.group(PartnerApi, "billing", (handlers) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const tariffs = yield* Tariffs
    const pricing = yield* Pricing
    return handlers
      .handle("balance", () => Effect.flatMap(CurrentApiKey, ({ partnerId }) => orApiError(ledger.balance(partnerId))))
      .handle("tariff", () => Effect.flatMap(CurrentApiKey, ({ partnerId }) => orApiError(tariffs.view(partnerId))))
      .handle("catalog", () =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentApiKey
          yield* noStore
          return pricing.view(yield* orApiError(tariffs.discountPercent(partnerId)))
        })
      )
      .handle("estimate", ({ payload }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentApiKey
          const discount = yield* orApiError(tariffs.discountPercent(partnerId))
          yield* tokenizerReady
          return yield* Either.match(pricing.estimate(payload, discount), {
            onLeft: (e) => Effect.fail(toApiError(e)),
            onRight: Effect.succeed
          })
        })
      )
  })
)
