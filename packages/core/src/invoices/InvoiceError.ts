/**
 * Typed failures of company profiles and legal invoices, each with its machine code and HTTP
 * status (the spec leaves these codes "not shown"; these are Frank's).
 */
import { Schema } from "effect"
import { codedErrorFields } from "../codedError.js"

const fields = codedErrorFields

/** The save or invoice named a profile revision that is not the current one. */
export class ProfileRevisionConflict extends Schema.TaggedError<ProfileRevisionConflict>()("ProfileRevisionConflict", {
  ...fields("COMPANY_PROFILE_REVISION_CONFLICT", 409),
  currentRevision: Schema.Number
}) {}

/** An invoice was requested before any company profile was saved. */
export class ProfileRequired extends Schema.TaggedError<ProfileRequired>()(
  "ProfileRequired",
  fields("COMPANY_PROFILE_REQUIRED", 409)
) {}

/** One violation with its machine code, for a page that words it in its own language. */
export const ProfileIssueSchema = Schema.Struct({
  field: Schema.String,
  code: Schema.String,
  max: Schema.optional(Schema.Number),
  message: Schema.String
})

/** Every violation of a profile save at once: `messages` for the API, `issues` with their codes. */
export class ProfileInvalid extends Schema.TaggedError<ProfileInvalid>()("ProfileInvalid", {
  ...fields("VALIDATION_FAILED", 400),
  messages: Schema.Array(Schema.String),
  issues: Schema.optionalWith(Schema.Array(ProfileIssueSchema), { default: () => [] })
}) {}

/** No invoice with that id belongs to the partner (INVOICE_NOT_FOUND, 404). */
export class InvoiceNotFound extends Schema.TaggedError<InvoiceNotFound>()(
  "InvoiceNotFound",
  fields("INVOICE_NOT_FOUND", 404)
) {}

/** A payment link was asked for an invoice that is paid or canceled. */
export class InvoiceNotPayable extends Schema.TaggedError<InvoiceNotPayable>()(
  "InvoiceNotPayable",
  fields("INVOICE_NOT_PAYABLE", 409)
) {}

/**
 * The bank did not answer or refused the request. The outcome of a write at the bank may be
 * unknown, so the API answers 500 (spec "Status codes"); the cause is logged, not shown.
 */
export class BankUnavailable extends Schema.TaggedError<BankUnavailable>()("BankUnavailable", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/** Every violation of an invoice request at once (embedders calling the service directly). */
export class InvoiceRequestInvalid extends Schema.TaggedError<InvoiceRequestInvalid>()("InvoiceRequestInvalid", {
  ...fields("VALIDATION_FAILED", 400),
  messages: Schema.Array(Schema.String)
}) {}
