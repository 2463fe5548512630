export * from "./ConsumeResult.js"
export * from "./ProcessedEvents.js"
export * from "./consumeOnce.js"
export * from "./ReceivedEvent.js"
