/**
 * The machine codes each partner-API operation can answer, per HTTP status, for the OpenAPI
 * document (openApiErrors.ts). Codes every operation of a kind shares (authentication, rate limits,
 * validation, internal errors) are added there; this table lists what the operation itself adds.
 * Codes come from the domain errors the handler's services fail with (their types name them).
 */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503
/** The machine codes an operation may answer, by HTTP status. */
export type CodesByStatus = Partial<Record<ErrorStatus, ReadonlyArray<string>>>

/** An operation's documentation: summary and error codes. */
export interface OperationDoc {
  readonly summary: string
  readonly codes?: CodesByStatus
}

const WEBHOOK_URL = [
  "WEBHOOK_URL_INVALID",
  "WEBHOOK_URL_NOT_HTTPS",
  "WEBHOOK_URL_CREDENTIALS",
  "WEBHOOK_URL_IP_LITERAL",
  "WEBHOOK_URL_INTERNAL_HOST"
]
const IMPORT = [
  "IMPORT_SOURCE_INVALID",
  "IMPORT_SOURCE_REFUSED",
  "IMPORT_SOURCE_UNAVAILABLE",
  "IMPORT_FORMAT_UNSUPPORTED",
  "IMPORT_KIND_MISMATCH",
  "IMPORT_TOO_LARGE",
  "IMPORT_PDF_ENCRYPTED",
  "IMPORT_TEXT_NOT_UTF8",
  "IMPORT_FILE_UNREADABLE",
  "WEBHOOK_URL_IP_LITERAL",
  "WEBHOOK_URL_INTERNAL_HOST"
]

/** Every partner operation's summary and error codes, for the OpenAPI document. */
export const partnerOperationDocs: Readonly<Record<string, OperationDoc>> = {
  "keys.list": { summary: "List the partner's API keys" },
  "audit.list": { summary: "The partner's audit log: who changed what, newest first" },
  "keys.issue": {
    summary: "Issue an API key (shown once)",
    codes: {
      400: ["API_KEY_SCOPE_UNKNOWN", "API_KEY_SCOPE_EMPTY", "API_KEY_EXPIRY_OUT_OF_RANGE", "API_KEY_QUOTA_EXCEEDED"]
    }
  },
  "keys.update": {
    summary: "Change a key's label or narrow its scopes",
    codes: {
      400: [
        "API_KEY_SCOPE_UNKNOWN",
        "API_KEY_SCOPE_EMPTY",
        "API_KEY_SCOPE_DOWNGRADE_FORBIDDEN",
        "API_KEY_EXPIRY_IMMUTABLE"
      ],
      404: ["API_KEY_NOT_FOUND"]
    }
  },
  "keys.revoke": { summary: "Revoke an API key" },
  "keys.revokeWithReason": { summary: "Revoke an API key with a reason" },
  "keys.operations": { summary: "Which scope opens which operation" },
  "auth.check": { summary: "Check the calling key and its scopes" },
  "billing.balance": { summary: "Balance: total, used, reserved, available" },
  "billing.creditGrants": { summary: "Bonus credit grants with their remainders and expiry" },
  "billing.createAlert": {
    summary: "Create a balance alert",
    codes: { 400: ["ALERT_THRESHOLD_INVALID"], 409: ["ALERT_LIMIT_REACHED"] }
  },
  "billing.listAlerts": { summary: "The partner's balance alerts" },
  "billing.deleteAlert": { summary: "Delete a balance alert", codes: { 404: ["ALERT_NOT_FOUND"] } },
  "billing.tariff": { summary: "The partner's tariff and discount" },
  "billing.catalog": { summary: "Price catalog at the partner's tariff" },
  "billing.estimate": { summary: "Price a task", codes: { 400: ["PRICING_MODEL_UNKNOWN", "ESTIMATE_INVALID"] } },
  "ledger.transactions": { summary: "Ledger transactions, filtered and paginated" },
  "ledger.export": { summary: "Export ledger transactions as CSV" },
  "ledger.usageDaily": { summary: "Spend per day" },
  "webhooks.listEndpoints": { summary: "List webhook endpoints" },
  "webhooks.getEndpoint": { summary: "Read one webhook endpoint", codes: { 404: ["WEBHOOK_ENDPOINT_NOT_FOUND"] } },
  "webhooks.createEndpoint": {
    summary: "Register a webhook endpoint",
    codes: { 400: [...WEBHOOK_URL, "WEBHOOK_EVENT_TYPE_UNKNOWN", "WEBHOOK_ENDPOINT_LIMIT_EXCEEDED"] }
  },
  "webhooks.updateEndpoint": {
    summary: "Change a webhook endpoint",
    codes: {
      400: [...WEBHOOK_URL, "WEBHOOK_EVENT_TYPE_UNKNOWN"],
      404: ["WEBHOOK_ENDPOINT_NOT_FOUND"],
      409: ["WEBHOOK_SECRET_ROTATION_REQUIRED"]
    }
  },
  "webhooks.deleteEndpoint": { summary: "Delete a webhook endpoint", codes: { 404: ["WEBHOOK_ENDPOINT_NOT_FOUND"] } },
  "webhooks.rotateSecret": {
    summary: "Rotate an endpoint's signing secret",
    codes: { 404: ["WEBHOOK_ENDPOINT_NOT_FOUND"] }
  },
  "webhooks.sendTest": {
    summary: "Send a webhook.test event",
    codes: { 404: ["WEBHOOK_ENDPOINT_NOT_FOUND"], 409: ["WEBHOOK_ENDPOINT_INACTIVE"] }
  },
  "webhooks.recoverEndpoint": {
    summary: "Requeue an endpoint's failed deliveries of a time window",
    codes: {
      404: ["WEBHOOK_ENDPOINT_NOT_FOUND"],
      409: ["DELIVERY_ENDPOINT_DELETED", "DELIVERY_ENDPOINT_INACTIVE"]
    }
  },
  "webhooks.listEventTypes": { summary: "The event catalog: every event type with its data's JSON Schema" },
  "webhooks.listDeliveries": { summary: "List deliveries, newest first", codes: { 400: ["DELIVERY_CURSOR_INVALID"] } },
  "webhooks.getDelivery": {
    summary: "Read one delivery with its event's payload and every attempt",
    codes: { 404: ["DELIVERY_NOT_FOUND"] }
  },
  "webhooks.replayDelivery": {
    summary: "Replay a delivery",
    codes: {
      404: ["DELIVERY_NOT_FOUND"],
      409: ["DELIVERY_NOT_REPLAYABLE", "DELIVERY_ENDPOINT_DELETED", "DELIVERY_ENDPOINT_INACTIVE"]
    }
  },
  "tasks.launch": {
    summary: "Launch a generation task (reserves its price)",
    codes: {
      400: ["TASK_INPUT_INVALID", "PRICING_MODEL_UNKNOWN", "ESTIMATE_INVALID"],
      402: ["INSUFFICIENT_FUNDS"],
      409: ["IDEMPOTENCY_KEY_REUSED"]
    }
  },
  "tasks.list": { summary: "List tasks" },
  "tasks.get": { summary: "A task's status", codes: { 404: ["TASK_NOT_FOUND"] } },
  "tasks.result": {
    summary: "A finished task's result",
    codes: { 404: ["TASK_NOT_FOUND", "TASK_RESULT_NOT_AVAILABLE"] }
  },
  "files.import": { summary: "Import a file by URL", codes: { 400: IMPORT } },
  "files.download": { summary: "Download a stored file by its signed link", codes: { 404: ["FILE_NOT_FOUND"] } },
  "payments.createPaymentLink": {
    summary: "Create a card top-up payment link",
    codes: { 409: ["PAYMENT_IDEMPOTENCY_CONFLICT"] }
  },
  "payments.paymentHistory": { summary: "Card top-up history" },
  "invoices.getProfile": { summary: "The company profile for legal invoices" },
  "invoices.saveProfile": {
    summary: "Save the company profile",
    codes: { 409: ["COMPANY_PROFILE_REVISION_CONFLICT"] }
  },
  "invoices.createInvoice": {
    summary: "Issue a legal invoice",
    codes: { 409: ["COMPANY_PROFILE_REQUIRED", "COMPANY_PROFILE_REVISION_CONFLICT"] }
  },
  "invoices.invoiceHistory": { summary: "Legal invoice history" },
  "invoices.invoicePdf": { summary: "A legal invoice as PDF", codes: { 404: ["INVOICE_NOT_FOUND"] } },
  "invoices.refreshInvoice": {
    summary: "Re-read an invoice's status at the bank",
    codes: { 404: ["INVOICE_NOT_FOUND"] }
  },
  "invoices.invoiceSbpLink": {
    summary: "An SBP payment link for an invoice",
    codes: { 404: ["INVOICE_NOT_FOUND"], 409: ["INVOICE_NOT_PAYABLE"] }
  }
}
