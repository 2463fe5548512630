/**
 * The `Payments` namespace: card payments through a provider, their states and notifications,
 * the provider and store ports and the `Payments` service.
 */
export { type Payment, PaymentStatus } from "./Payment.js"
export {
  PaymentIdempotencyConflict,
  PaymentNotFound,
  PaymentNotificationInvalid,
  PaymentProviderError,
  PaymentRequestInvalid,
  PaymentTransitionRefused
} from "./PaymentError.js"
export {
  type PaymentNotification,
  PaymentProvider,
  type PaymentProviderShape,
  type RawNotification
} from "./PaymentProvider.js"
export { paymentTransition } from "./PaymentState.js"
export { type NotificationError, type NotificationOutcome, Payments } from "./Payments.js"
