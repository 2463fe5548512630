/**
 * Handlers of the billing group: balance, credit grants, balance alerts (a session or a key), tariff,
 * catalog, estimate. Platform-neutral.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Schema } from "effect"
import { AlertNotFound } from "../../../ledger/BalanceAlert.js"
import { Ledger } from "../../../ledger/Ledger.js"
import { balanceAlertView, creditGrantView } from "../../../ledger/internal/grantViews.js"
import { franksToMinor } from "../../../internal/money.js"
import { apiError } from "../../errors/ApiError.js"
import { Pricing } from "../../../pricing/Pricing.js"
import { tokenizerReadyFor } from "../../../pricing/tokens.js"
import { Tariffs } from "../../../tariff/Tariffs.js"
import { orApiError, toApiError } from "../../errors/domainErrors.js"
import { PartnerApi } from "../../PartnerApi.js"
import { idOr } from "../../pathIds.js"
import { CurrentApiKey, CurrentPartner } from "../Security.js"

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
      .handle("creditGrants", () =>
        Effect.flatMap(CurrentApiKey, ({ partnerId }) =>
          Effect.map(orApiError(ledger.grants(partnerId)), (grants) => ({ items: grants.map(creditGrantView) }))
        )
      )
      .handle("createAlert", ({ payload }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentPartner
          const thresholdMinor = franksToMinor(payload.thresholdFranks)
          if (thresholdMinor === undefined)
            return yield* Effect.fail(apiError(400, "VALIDATION_FAILED", ["thresholdFranks: at most two decimals"]))
          return balanceAlertView(yield* orApiError(ledger.createAlert(partnerId, thresholdMinor)))
        })
      )
      .handle("listAlerts", () =>
        Effect.flatMap(CurrentPartner, ({ partnerId }) =>
          Effect.map(orApiError(ledger.alerts(partnerId)), (alerts) => ({ items: alerts.map(balanceAlertView) }))
        )
      )
      .handle("deleteAlert", ({ path }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentPartner
          // A malformed id names no alert: 404 before the store sees it (a NUL would reach SQL).
          const alertId = yield* orApiError(
            idOr(Schema.UUID, path.id, () => new AlertNotFound({ message: `no balance alert ${path.id}` }))
          )
          yield* orApiError(ledger.deleteAlert(partnerId, alertId))
          return { id: path.id, deleted: true as const }
        })
      )
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
          yield* tokenizerReadyFor(pricing.catalog, payload.modelId)
          return yield* Either.match(pricing.estimate(payload, discount), {
            onLeft: (e) => Effect.fail(toApiError(e)),
            onRight: Effect.succeed
          })
        })
      )
  })
)
