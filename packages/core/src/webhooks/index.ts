/**
 * The `Webhooks` namespace: endpoints and their health, deliveries and their states, the
 * `Webhooks` service, the delivery worker, retention, and the store and transport ports.
 */
export {
  type ClaimedDelivery,
  type DeliveryDetail,
  type DeliveryFilter,
  type DeliveryRecord,
  encodeCursor,
  type FinishedAttempt
} from "./Delivery.js"
export { DeliveryObserver } from "./DeliveryObserver.js"
export { type DeliveryState, DeliveryStatus } from "./DeliveryState.js"
export { DeliveryWorker } from "./DeliveryWorker.js"
export type { WebhookEndpoint } from "./Endpoint.js"
export { type DisablePolicy, type EndpointHealth, newEndpointHealth, sameHealth } from "./EndpointHealth.js"
export {
  DeliveryEndpointDeleted,
  DeliveryEndpointInactive,
  DeliveryNotFound,
  DeliveryNotReplayable,
  EndpointNotFound,
  RecoveryWindowInvalid
} from "./WebhookError.js"
export { WebhookRetention } from "./WebhookRetention.js"
export { DEFAULT_RETENTION_DAYS, WebhookSettings } from "./WebhookSettings.js"
export { Webhooks } from "./Webhooks.js"
export { MAX_RECOVERED_PER_CALL } from "./recoveryWindow.js"
export { endpointReplayRule, replayRule } from "./replayRule.js"
export {
  type AttemptOutcome,
  type AttemptRequest,
  WebhookTransport,
  type WebhookTransportShape
} from "./transport/WebhookTransport.js"
export { attemptRequest, attemptRequests, USER_AGENT } from "./transport/attemptRequest.js"
export { finishedAttempt } from "./transport/finishedAttempt.js"
export { RESPONSE_SNIPPET_BYTES, responseSnippet } from "./transport/responseSnippet.js"
export { sendEach } from "./transport/sendEach.js"
export {
  defaultWorkerConfig,
  type DeliveryWorkerConfig,
  DeliveryWorkerConfigError
} from "./WorkerConfig.js"
export type { EndpointCondition, EndpointKey } from "./store/storeTypes.js"
