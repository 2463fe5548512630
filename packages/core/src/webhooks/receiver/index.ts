/**
 * The `WebhookReceiver` namespace: the kit for a partner's receiving side: verify a delivery's
 * signature, decode its event and process each event once. The parts of a verdict
 * (`VerifiedWebhook`, the failure reasons) are reached through `VerifyResult`.
 */
export { ConsumeResult } from "./ConsumeResult.js"
export { ProcessedEvents } from "./ProcessedEvents.js"
export { decodeReceivedEvent, ReceivedEvent } from "./ReceivedEvent.js"
export { consumeOnce } from "./consumeOnce.js"
export { type VerifyResult, verifyWebhook, type VerifyWebhookInput } from "./verifyWebhook.js"
export { rejectionStatus, verifyWebhookEffect, WebhookRejected } from "./verifyWebhookEffect.js"
