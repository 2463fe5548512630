/**
 * Balance, tariff, price catalog and cost estimates.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Balance } from "../../ledger/Balance.js"
import { ApiKeyAuth, RequiredScope } from "../Security.js"

export class BillingGroup extends HttpApiGroup.make("billing")
  .add(HttpApiEndpoint.get("balance", "/v1/billing/balance").addSuccess(Balance).middleware(ApiKeyAuth).annotate(RequiredScope, "billing:read"))
  .annotate(OpenApi.Title, "Balance, tariff, pricing") {}
