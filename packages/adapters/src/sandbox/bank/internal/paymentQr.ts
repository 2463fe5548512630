/**
 * The payment QR code of Russian invoices: the "ST00012" text of GOST R 56042-2014 ("Standards
 * of financial operations. Two-dimensional barcode symbols for payments by individuals"), which
 * banking apps read to fill in a transfer. `ST0001` is the format id, `2` says UTF-8, `|`
 * separates `Key=Value` pairs; the five required keys come first in the order the standard
 * gives. `Sum` is in kopecks.
 */

export interface PaymentQrFields {
  readonly name: string
  readonly personalAcc: string
  readonly bankName: string
  readonly bic: string
  readonly correspAcc: string
  readonly payeeInn: string
  readonly kpp: string
  readonly sumKopecks: number
  readonly purpose: string
  readonly payerInn?: string | undefined
}

/** `|` separates pairs, so a value may not contain one; the standard has no escape. */
const value = (s: string) => s.replaceAll("|", "/").replace(/\s+/g, " ").trim()

export const paymentQrText = (f: PaymentQrFields): string =>
  [
    "ST00012",
    `Name=${value(f.name)}`,
    `PersonalAcc=${f.personalAcc}`,
    `BankName=${value(f.bankName)}`,
    `BIC=${f.bic}`,
    `CorrespAcc=${f.correspAcc}`,
    `PayeeINN=${f.payeeInn}`,
    `KPP=${f.kpp}`,
    `Sum=${f.sumKopecks}`,
    `Purpose=${value(f.purpose)}`,
    ...(f.payerInn === undefined ? [] : [`PayerINN=${f.payerInn}`])
  ].join("|")
