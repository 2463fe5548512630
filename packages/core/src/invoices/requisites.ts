/**
 * Checksums and formats of Russian legal-entity requisites, as pure functions.
 *
 * - ИНН (taxpayer number): 10 digits for an organisation, 12 for an individual (sole
 *   proprietor). Control digits by the Federal Tax Service algorithm: weighted sums mod 11,
 *   then mod 10 (order of the FTS of Russia No. ММВ-7-6/435@, appendix on the INN structure).
 * - ОГРН / ОГРНИП (state registration number): 13 digits for an organisation, 15 for a sole
 *   proprietor; the last digit is (the preceding number mod 11, resp. mod 13) mod 10.
 * - КПП (tax registration reason code): 9 characters, NNNNPPNNN where PP may be digits or A–Z.
 */

const digitsOf = (s: string): ReadonlyArray<number> => Array.from(s, (c) => c.charCodeAt(0) - 48)

/** (Σ weight·digit mod 11) mod 10 over the leading digits. */
const controlDigit = (digits: ReadonlyArray<number>, weights: ReadonlyArray<number>): number =>
  (weights.reduce((sum, w, i) => sum + w * (digits[i] ?? 0), 0) % 11) % 10

const INN10_WEIGHTS = [2, 4, 10, 3, 5, 9, 4, 6, 8]
const INN12_WEIGHTS_11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
const INN12_WEIGHTS_12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]

export type InnKind = "organization" | "individual"

/** What an INN is, or why it is not one. */
export type InnCheck =
  | { readonly _tag: "Valid"; readonly kind: InnKind }
  | { readonly _tag: "Invalid"; readonly reason: string; readonly code: RequisiteProblemCode }

/** Machine codes of the requisite problems, for a translated message (the API keeps `reason`). */
export type RequisiteProblemCode =
  | "INN_NOT_DIGITS"
  | "INN_CHECKSUM"
  | "INN_LENGTH"
  | "OGRN_NOT_DIGITS"
  | "OGRN_LENGTH"
  | "OGRN_ORGANIZATION_LENGTH"
  | "OGRN_INDIVIDUAL_LENGTH"
  | "OGRN_CHECKSUM"

export const checkInn = (inn: string): InnCheck => {
  if (!/^\d+$/.test(inn)) return { _tag: "Invalid", reason: "must contain digits only", code: "INN_NOT_DIGITS" }
  const d = digitsOf(inn)
  if (d.length === 10)
    return controlDigit(d, INN10_WEIGHTS) === d[9]
      ? { _tag: "Valid", kind: "organization" }
      : { _tag: "Invalid", reason: "control digit does not match (not a valid INN)", code: "INN_CHECKSUM" }
  if (d.length === 12)
    return controlDigit(d, INN12_WEIGHTS_11) === d[10] && controlDigit(d, INN12_WEIGHTS_12) === d[11]
      ? { _tag: "Valid", kind: "individual" }
      : { _tag: "Invalid", reason: "control digits do not match (not a valid INN)", code: "INN_CHECKSUM" }
  return {
    _tag: "Invalid",
    reason: "must have 10 digits (organisation) or 12 digits (sole proprietor)",
    code: "INN_LENGTH"
  }
}

/** Whether a string is a valid INN (taxpayer number), check digits included. */
export const isValidInn = (inn: string): boolean => checkInn(inn)._tag === "Valid"

/** A number given as decimal digits, mod m, without leaving the safe-integer range. */
const decimalMod = (digits: string, m: number): number => {
  let r = 0
  for (const c of digits) r = (r * 10 + (c.charCodeAt(0) - 48)) % m
  return r
}

/** What is wrong with an ОГРН: its code and the API's English words. */
export interface RequisiteProblem {
  readonly code: RequisiteProblemCode
  readonly message: string
}

/** ОГРН (13 digits) for an organisation, ОГРНИП (15 digits) for a sole proprietor; undefined when valid. */
export const ogrnIssue = (ogrn: string, kind: InnKind | undefined): RequisiteProblem | undefined => {
  const problem = (code: RequisiteProblemCode, message: string) => ({ code, message })
  if (!/^\d+$/.test(ogrn)) return problem("OGRN_NOT_DIGITS", "must contain digits only")
  if (ogrn.length !== 13 && ogrn.length !== 15)
    return problem("OGRN_LENGTH", "must have 13 digits (ОГРН) or 15 digits (ОГРНИП)")
  if (kind === "organization" && ogrn.length !== 13)
    return problem("OGRN_ORGANIZATION_LENGTH", "an organisation (10-digit INN) has a 13-digit ОГРН")
  if (kind === "individual" && ogrn.length !== 15)
    return problem("OGRN_INDIVIDUAL_LENGTH", "a sole proprietor (12-digit INN) has a 15-digit ОГРНИП")
  const body = ogrn.slice(0, -1)
  const expected = decimalMod(body, ogrn.length === 13 ? 11 : 13) % 10
  return expected === Number(ogrn.at(-1))
    ? undefined
    : problem("OGRN_CHECKSUM", "control digit does not match (not a valid ОГРН)")
}

/** The ОГРН problem in the API's words; undefined when valid. */
export const ogrnProblem = (ogrn: string, kind: InnKind | undefined): string | undefined =>
  ogrnIssue(ogrn, kind)?.message

/** Whether a string is a valid KPP (registration reason code). */
export const isValidKpp = (kpp: string): boolean => /^\d{4}[\dA-Z]{2}\d{3}$/.test(kpp)

/**
 * A pragmatic address check: one `@`, no spaces, a dotted domain, within the RFC 5321 length.
 * Deliverability is the bank's and the mail server's business.
 */
export const isValidEmail = (email: string): boolean =>
  email.length <= 254 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(email) && !email.includes("..")
