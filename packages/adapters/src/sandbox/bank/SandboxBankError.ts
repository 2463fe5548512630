/**
 * Failures of the sandbox bank's own controls (the operator's pay/cancel, the SBP page).
 */
import { Errors } from "@frank/core"
import { Schema } from "effect"

export class SandboxInvoiceNotFound extends Schema.TaggedError<SandboxInvoiceNotFound>()(
  "SandboxInvoiceNotFound",
  Errors.codedErrorFields("SANDBOX_INVOICE_NOT_FOUND", 404)
) {}

/** Paying a canceled invoice or canceling a paid one. */
export class SandboxInvoiceSettled extends Schema.TaggedError<SandboxInvoiceSettled>()(
  "SandboxInvoiceSettled",
  Errors.codedErrorFields("SANDBOX_INVOICE_SETTLED", 409)
) {}
