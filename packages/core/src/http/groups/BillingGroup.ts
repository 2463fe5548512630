/**
 * Balance, credit grants, balance alerts, tariff, price catalog and cost estimates.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import { Balance } from "../../ledger/internal/Balance.js"
import { BalanceAlertList, BalanceAlertView, CreditGrantList } from "../../ledger/internal/grantViews.js"
import { BadRequest, Conflict, NotFound } from "../errors/ApiError.js"
import { requestParseOptions } from "../internal/coerce.js"
import { CatalogView } from "../../pricing/CatalogView.js"
import { EstimateRequest } from "../../pricing/EstimateRequest.js"
import { Quote } from "../../pricing/Quote.js"
import { TariffView } from "../../tariff/internal/tariffView.js"
import { ApiKeyAuth, PartnerAuth, RequiredScope } from "../internal/Security.js"

const CreateBalanceAlert = Schema.Struct({
  thresholdFranks: Schema.Number.annotations({ description: "1..10,000,000 ₣, at most two decimals" })
}).annotations({ identifier: "CreateBalanceAlert", ...requestParseOptions })

const DeletedAlert = Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }).annotations({
  identifier: "DeletedBalanceAlert"
})

const alertId = HttpApiSchema.param("id", Schema.String)

/** The partner API's billing endpoints (balance, usage, estimates). */
export class BillingGroup extends HttpApiGroup.make("billing")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.get("balance", "/v1/billing/balance")
      .addSuccess(Balance)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
  )
  .add(
    HttpApiEndpoint.get("creditGrants", "/v1/billing/credit-grants")
      .addSuccess(CreditGrantList)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
      .annotate(
        OpenApi.Description,
        "Bonus credits with a priority or an expiry, newest first. Spending draws from them by priority (lower first), then the soonest expiry, before other money; at expiresAt what is left unreserved is clawed back (billing.bonus_expired)."
      )
  )
  .add(
    HttpApiEndpoint.post("createAlert", "/v1/billing/alerts")
      .setPayload(CreateBalanceAlert)
      .addSuccess(BalanceAlertView, { status: 201 })
      .addError(BadRequest)
      .addError(Conflict)
      .middleware(PartnerAuth)
      .annotate(RequiredScope, "full")
      .annotate(
        OpenApi.Description,
        "A cabinet session or a full-access key. At most 5 per partner (409 ALERT_LIMIT_REACHED). billing.balance_alert is sent when available falls below the threshold (triggered) and when it rises to it or above (resolved), once per crossing."
      )
  )
  .add(
    HttpApiEndpoint.get("listAlerts", "/v1/billing/alerts")
      .addSuccess(BalanceAlertList)
      .middleware(PartnerAuth)
      .annotate(RequiredScope, "billing:read")
      .annotate(OpenApi.Description, "A cabinet session or a key with billing:read")
  )
  .add(
    HttpApiEndpoint.del("deleteAlert")`/v1/billing/alerts/${alertId}`
      .addSuccess(DeletedAlert)
      .addError(NotFound)
      .middleware(PartnerAuth)
      .annotate(RequiredScope, "full")
      .annotate(OpenApi.Description, "A cabinet session or a full-access key; 404 ALERT_NOT_FOUND for an unknown id")
  )
  .add(
    HttpApiEndpoint.get("tariff", "/v1/billing/tariff")
      .addSuccess(TariffView)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
  )
  .add(
    HttpApiEndpoint.get("catalog", "/v1/billing/pricing/catalog")
      .addSuccess(CatalogView)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "pricing:read")
      .annotate(
        OpenApi.Description,
        "Not cacheable (Cache-Control: no-store); re-reading once per refreshAfterSeconds suffices"
      )
  )
  .add(
    HttpApiEndpoint.post("estimate", "/v1/billing/pricing/estimate")
      .setPayload(EstimateRequest)
      .addSuccess(Quote)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "pricing:read")
      .annotate(OpenApi.Description, "A quote at the effective tariff; no side effects, nothing reserved")
  )
  .annotate(OpenApi.Title, "Balance, tariff, pricing") {}
