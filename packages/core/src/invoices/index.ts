/**
 * The `Invoices` namespace: bank invoices for a partner's top-up, the company profile they are
 * issued to, the bank gateway port and the `Invoices` service.
 */
export { BankGateway, type BankGatewayShape, type BankInvoiceRef } from "./BankGateway.js"
export { type CompanyProfile, type CompanyRequisites, requisitesOf } from "./CompanyProfile.js"
export type { Invoice } from "./Invoice.js"
export { InvoiceStatus } from "./internal/InvoiceState.js"
export { BankUnavailable, InvoiceNotFound } from "./InvoiceError.js"
export { Invoices } from "./Invoices.js"
export { isValidInn, isValidKpp } from "./requisites.js"
export type { ProfileInput } from "./validateProfile.js"
