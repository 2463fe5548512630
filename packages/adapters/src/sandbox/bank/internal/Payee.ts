/**
 * Who the sandbox bank's invoices are payable to: the platform operator's company and its bank
 * account. The defaults are fictional but well-formed (checksum-valid INN, account keys that
 * match the BIC), so the PDF and the QR code look and scan like real ones; an operator may pass
 * their own.
 */

export interface Payee {
  readonly name: string
  readonly inn: string
  readonly kpp: string
  readonly address: string
  readonly bankName: string
  readonly bic: string
  /** Settlement account (расчётный счёт), 20 digits. */
  readonly account: string
  /** Correspondent account of the bank, 20 digits. */
  readonly correspondentAccount: string
}

export const sandboxPayee: Payee = {
  name: "ООО «Франк Песочница»",
  inn: "7705123452",
  kpp: "770501001",
  address: "115054, г. Москва, ул. Образцовая, д. 1 (песочница)",
  bankName: "АО «Банк Песочница», г. Москва",
  bic: "044525999",
  account: "40702810600000012345",
  correspondentAccount: "30101810600000000999"
}

const KEY_WEIGHTS = [7, 1, 3]
const keyValid = (digits: string): boolean =>
  /^\d+$/.test(digits) &&
  [...digits].reduce((sum, c, i) => sum + ((Number(c) * (KEY_WEIGHTS[i % 3] ?? 0)) % 10), 0) % 10 === 0

/** The control key of a settlement account against its bank's BIC (Bank of Russia rules No. 385-P). */
export const isSettlementAccountValid = (account: string, bic: string): boolean =>
  account.length === 20 && bic.length === 9 && keyValid(bic.slice(-3) + account)

/** The control key of a correspondent account: "0" + the 5th and 6th BIC digits, then the account. */
export const isCorrespondentAccountValid = (account: string, bic: string): boolean =>
  account.length === 20 && bic.length === 9 && keyValid(`0${bic.slice(4, 6)}${account}`)
