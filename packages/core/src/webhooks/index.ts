export * from "./DeliveryState.js"
export * from "./EventType.js"
export * from "./signature.js"
export * from "./verifyWebhook.js"
