/**
 * Balance, tariff, price catalog and cost estimates.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Balance } from "../../ledger/Balance.js"
import { CatalogView } from "../../pricing/CatalogView.js"
import { EstimateRequest } from "../../pricing/EstimateRequest.js"
import { Quote } from "../../pricing/Quote.js"
import { TariffView } from "../../tariff/tariffView.js"
import { ApiKeyAuth, RequiredScope } from "../Security.js"

export class BillingGroup extends HttpApiGroup.make("billing")
  .add(
    HttpApiEndpoint.get("balance", "/v1/billing/balance")
      .addSuccess(Balance)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
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
