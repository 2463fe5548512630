/**
 * The partner API as one HttpApi definition: it serves requests (host), derives the typed client
 * and the OpenAPI document. Later areas add their groups here.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  BadRequest,
  Conflict,
  Forbidden,
  InternalError,
  NotFound,
  PaymentRequired,
  TooManyRequests,
  Unauthorized,
  UnprocessableEntity
} from "./errors/ApiError.js"
import { partnerOperationDocs } from "./errors/errorCodes.js"
import { AuditGroup } from "./groups/AuditGroup.js"
import { AuthGroup } from "./groups/AuthGroup.js"
import { BillingGroup } from "./groups/BillingGroup.js"
import { FilesGroup } from "./groups/FilesGroup.js"
import { KeysGroup } from "./groups/KeysGroup.js"
import { LedgerGroup } from "./groups/LedgerGroup.js"
import { TasksGroup } from "./groups/TasksGroup.js"
import { WebhooksGroup } from "./groups/WebhooksGroup.js"
import { InvoicesGroup } from "./groups/InvoicesGroup.js"
import { PaymentsGroup } from "./groups/PaymentsGroup.js"
import { documentErrors, partnerAuthCodes } from "./errors/openApiErrors.js"

/** The partner HttpApi: every group of spec partner-api.md. */
export class PartnerApi extends HttpApi.make("frank")
  .add(KeysGroup)
  .add(AuthGroup)
  .add(BillingGroup)
  .add(LedgerGroup)
  .add(WebhooksGroup)
  .add(TasksGroup)
  .add(FilesGroup)
  .add(PaymentsGroup)
  .add(InvoicesGroup)
  .add(AuditGroup)
  // Every envelope status is declared API-wide: domain failures map to statuses in one table
  // (domainErrors.ts), and the OpenAPI document lists them for every operation.
  .addError(BadRequest)
  .addError(Unauthorized)
  .addError(PaymentRequired)
  .addError(Forbidden)
  .addError(NotFound)
  .addError(Conflict)
  .addError(UnprocessableEntity)
  .addError(TooManyRequests)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Frank partner API")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(OpenApi.License, { name: "MIT" })
  // Per operation: only the error statuses it can answer, each with its machine codes.
  .annotate(OpenApi.Transform, documentErrors(partnerOperationDocs, partnerAuthCodes))
  .annotate(OpenApi.Description, "Billing, API keys and webhooks of the partner API. Amounts are in franks (₣).") {}
