/**
 * `@frank/core/http`: the partner HttpApi (its groups, handlers and error envelopes), the security
 * middleware and a typed client. A host serves `PartnerApi` with `PartnerApiLive`.
 */
export {
  type ApiError,
  apiError,
  type ApiErrorStatus,
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
/** Idempotency: `Idempotency-Key` on every change, the answer store port, `runOnce` and retention. */
export * as Idempotency from "../idempotency/index.js"
export { IdempotencyClaim, IdempotencyClaimLive } from "./IdempotencyClaim.js"
export { IdempotencyLive, SPEC_KEYED_ROUTES } from "./IdempotencyLive.js"
export { PartnerApi } from "./PartnerApi.js"
export { PartnerApiLive, PartnerHandlersLive } from "./PartnerApiLive.js"
export { makePartnerClient } from "./PartnerClient.js"
export { apiKeyOfHeaders, clientIp, requestHost, SecurityLive, SecuritySettings } from "./SecurityLive.js"
export { type DomainError, orApiError, toApiError } from "./errors/domainErrors.js"
export { validationMessages } from "./errors/internal/ValidationErrors.js"
export { type CodesByStatus, type OperationDoc, partnerOperationDocs } from "./errors/errorCodes.js"
export { AuditGroup, AuditLogPage, AuditLogQuery, AuditRecordView } from "./groups/AuditGroup.js"
export { auditQuery, auditRecordView } from "./internal/handlers/AuditHandlers.js"
export { AuthGroup } from "./groups/AuthGroup.js"
export { BillingGroup } from "./groups/BillingGroup.js"
export { FilesGroup } from "./groups/FilesGroup.js"
export { InvoicesGroup } from "./groups/InvoicesGroup.js"
export { KeysGroup } from "./groups/KeysGroup.js"
export { LedgerGroup } from "./groups/LedgerGroup.js"
export { PaymentsGroup } from "./groups/PaymentsGroup.js"
export { TasksGroup, TaskView } from "./groups/TasksGroup.js"
export { WebhooksGroup } from "./groups/WebhooksGroup.js"
export { taskView } from "./internal/handlers/TasksHandlers.js"
export { type AuthCodes, documentErrors, partnerAuthCodes } from "./errors/openApiErrors.js"
export { isCrossSiteChange } from "./originCheck.js"
export { idOr } from "./pathIds.js"
export { routeTable, scopeReference } from "./routeTable.js"
export { currentRequestId, ErrorEnvelopesLive, frankServerMiddleware } from "./serverMiddleware.js"
export {
  carriesBody,
  isJsonMediaType,
  refusesMediaType,
  UNSUPPORTED_MEDIA_TYPE,
  unsupportedMediaTypeMessage
} from "./mediaType.js"
export { routeMatcher, templatePattern } from "./routeMatcher.js"
