/** Summaries and machine codes of the admin operations, for the host's OpenAPI document. */
import type { AuthCodes, OperationDoc } from "@frank/core/http"

export const adminAuthCodes: AuthCodes = { adminToken: { 401: ["ADMIN_TOKEN_INVALID"] } }

const PARTNER = { 404: ["PARTNER_NOT_FOUND"] } as const

export const adminOperationDocs: Readonly<Record<string, OperationDoc>> = {
  "admin.createPartner": { summary: "Create a partner" },
  "admin.createSession": { summary: "Open a cabinet session for a partner", codes: PARTNER },
  "admin.addCredit": {
    summary: "Credit a partner (bonus or adjustment)",
    codes: {
      ...PARTNER,
      400: ["AMOUNT_INVALID", "GRANT_INVALID"],
      402: ["INSUFFICIENT_FUNDS"],
      409: ["LEDGER_REFERENCE_CONFLICT"]
    }
  },
  "admin.setTariff": { summary: "Assign a partner's tariff", codes: PARTNER },
  "admin.createLegacyKey": { summary: "Register a legacy service key", codes: PARTNER },
  "admin.auditLog": { summary: "A partner's audit log, newest first", codes: PARTNER },
  "admin.advanceClock": { summary: "Move the sandbox clock forward", codes: { 404: ["SANDBOX_CLOCK_DISABLED"] } },
  "admin.sandboxPayment": {
    summary: "Settle a sandbox card payment",
    codes: { 404: ["PAYMENT_NOT_FOUND"], 409: ["PAYMENT_TRANSITION_REFUSED"] }
  },
  "admin.sandboxTask": {
    summary: "Finish a sandbox generation task",
    codes: {
      400: ["TASK_OUTCOME_INVALID"],
      402: ["INSUFFICIENT_FUNDS"],
      404: ["TASK_NOT_FOUND"],
      409: ["HOLD_ALREADY_SETTLED"]
    }
  },
  "admin.payInvoice": { summary: "Pay a legal invoice at the sandbox bank", codes: { 404: ["INVOICE_NOT_FOUND"] } },
  "admin.cancelInvoice": {
    summary: "Cancel a legal invoice at the sandbox bank",
    codes: { 404: ["INVOICE_NOT_FOUND"] }
  }
}
