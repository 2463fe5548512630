/**
 * The words for the engine's values a page shows: statuses, transaction kinds, event types with
 * their descriptions, audit actions and targets. The raw value stays in the markup (data-status,
 * option values, `<code>`), the words are what a person reads. `labels.ru.ts` has the same keys.
 */
export const labelsEn = {
  plan: { base: "Base", pro: "Pro", max: "Max", ultra: "Ultra" } as Record<string, string>,
  invoiceStatus: { issued: "Issued", paid: "Paid", canceled: "Canceled", expired: "Expired" } as Record<string, string>,
  paymentStatus: {
    pending: "Awaiting payment",
    authorized: "Authorised",
    confirmed: "Paid",
    canceled: "Canceled",
    rejected: "Rejected",
    failed: "Failed"
  } as Record<string, string>,
  taskStatus: { queued: "Queued", running: "Running", succeeded: "Done", failed: "Failed" } as Record<string, string>,
  deliveryStatus: {
    pending: "Waiting to retry",
    delivering: "Sending",
    delivered: "Delivered",
    uncertain: "Outcome unknown",
    dead_lettered: "Gave up"
  } as Record<string, string>,
  entryKind: {
    topup: "Top-up",
    bonus: "Bonus",
    adjustment: "Adjustment",
    bonus_reversal: "Bonus withdrawn",
    bonus_expired: "Bonus expired",
    task_hold: "Task reservation",
    task_charge: "Task charge",
    task_release: "Unused reservation returned",
    task_refund: "Failed task refunded",
    task_hold_expired: "Reservation lapsed",
    spend_refund: "Refund",
    legacy_debit: "Charge (legacy API)"
  } as Record<string, string>,
  /** The sample catalog's operations; an operator's own stay as written, in code. */
  operations: {
    chat: "Chat",
    "image-edit": "Image editing",
    "image-to-video": "Image to video",
    moderate: "Moderation",
    "remove-background": "Background removal",
    "text-to-image": "Text to image",
    "text-to-speech": "Text to speech",
    "text-to-video": "Text to video",
    transcription: "Transcription",
    upscale: "Upscaling"
  } as Record<string, string>,
  /** The sample catalog's billing units; others stay as written. */
  billingUnits: {
    "1K tokens": "1K tokens",
    image: "image",
    minute: "minute",
    request: "request",
    second: "second"
  } as Record<string, string>,
  eventTypes: {
    "billing.settled": "A charge is confirmed, with its final amount.",
    "billing.refunded": "A task's reservation was refunded after the task failed or lapsed.",
    "billing.topup.confirmed": "A top-up is credited.",
    "billing.low_balance": "The available balance fell below 1,000 ₣ (at most once a day).",
    "billing.bonus_expired": "What was left of a bonus credit expired and was withdrawn.",
    "billing.balance_alert": "The available balance crossed one of your alert thresholds.",
    "billing.invoice.status_changed": "An invoice changed status or was paid.",
    "task.succeeded": "A generation task succeeded.",
    "task.failed": "A generation task failed.",
    "task.refunded": "A failed task's reservation went back to the available balance.",
    "webhook.test": "A test event sent on demand to one endpoint.",
    "webhook.endpoint.disabled": "An endpoint was paused automatically after failing for days."
  } as Record<string, string>,
  auditActions: {
    "api_key.issued": "Key issued",
    "api_key.renamed": "Key renamed",
    "api_key.narrowed": "Key scopes narrowed",
    "api_key.revoked": "Key revoked",
    "partner.created": "Account created",
    "sign_in_link.created": "Sign-in link created",
    "session.created": "Session opened",
    "session.signed_in": "Signed in",
    "session.ended": "Signed out",
    "webhook_endpoint.created": "Endpoint added",
    "webhook_endpoint.updated": "Endpoint changed",
    "webhook_endpoint.paused": "Endpoint paused",
    "webhook_endpoint.resumed": "Endpoint resumed",
    "webhook_endpoint.secret_rotated": "Endpoint secret rotated",
    "webhook_endpoint.deleted": "Endpoint deleted",
    "webhook_endpoint.recovered": "Endpoint deliveries recovered",
    "webhook_endpoint.tested": "Test event sent",
    "webhook_delivery.replayed": "Delivery replayed",
    "company_profile.updated": "Company profile saved",
    "invoice.created": "Invoice created",
    "invoice.sbp_link_created": "SBP link created",
    "top_up_link.created": "Top-up started",
    "credit.added": "Credit added",
    "balance_alert.created": "Balance alert added",
    "balance_alert.deleted": "Balance alert deleted",
    "tariff.assigned": "Tariff assigned"
  } as Record<string, string>,
  auditTargets: {
    api_key: "Key",
    legacy_api_key: "Legacy key",
    partner: "Account",
    session: "Session",
    webhook_endpoint: "Endpoint",
    webhook_delivery: "Delivery",
    company_profile: "Company profile",
    invoice: "Invoice",
    payment: "Payment",
    ledger_entry: "Transaction",
    balance_alert: "Balance alert"
  } as Record<string, string>
}

export type Labels = typeof labelsEn
