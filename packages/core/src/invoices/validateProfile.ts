/**
 * Validation of a company profile save, as one pure function that lists every violation at once
 * (spec "Errors": the message array lists every violation). The HTTP schema has already checked
 * the types; this checks presence, formats and checksums, and normalizes the values.
 */
import { Either } from "effect"
import { type CompanyRequisites, NO_PROFILE_REVISION, PROFILE_LIMITS } from "./CompanyProfile.js"
import { checkInn, type InnKind, isValidEmail, isValidKpp, ogrnIssue, type RequisiteProblemCode } from "./requisites.js"

/** A profile save as it arrives: every field optional, so that missing ones are reported together. */
export interface ProfileInput {
  readonly companyName?: string | null | undefined
  readonly inn?: string | null | undefined
  readonly kpp?: string | null | undefined
  readonly ogrn?: string | null | undefined
  readonly legalAddress?: string | null | undefined
  readonly postalAddress?: string | null | undefined
  readonly email?: string | null | undefined
  readonly phone?: string | null | undefined
  readonly expectedProfileRevision?: number | null | undefined
}

export interface ValidProfileSave {
  readonly requisites: CompanyRequisites
  readonly expectedRevision: number
}

/** Trimmed, with inner runs of whitespace collapsed; empty → null. */
const clean = (s: string | null | undefined): string | null => {
  if (s === null || s === undefined) return null
  const t = s.trim().replace(/\s+/g, " ")
  return t.length === 0 ? null : t
}

/** Identifiers are written with spaces sometimes ("7707 083 893"); they carry none. */
const compact = (s: string | null | undefined): string | null => {
  const t = clean(s)
  return t === null ? null : t.replace(/\s/g, "")
}

/** The codes of a profile problem besides the requisites' own (requisites.ts). */
export type ProfileProblemCode =
  | RequisiteProblemCode
  | "REQUIRED"
  | "TOO_LONG"
  | "KPP_FORMAT"
  | "KPP_REQUIRED_FOR_ORGANIZATION"
  | "KPP_FORBIDDEN_FOR_INDIVIDUAL"
  | "EMAIL_FORMAT"
  | "PHONE_FORMAT"
  | "REVISION_REQUIRED"
  | "REVISION_INVALID"

/**
 * One violation: the field, a machine code a page translates (with `max` for TOO_LONG), and the
 * API's English `message` ("field: problem").
 */
export interface ProfileIssue {
  readonly field: string
  readonly code: ProfileProblemCode
  readonly max?: number
  readonly message: string
}

/** Every violation of a profile save as `field: problem` lines (the API's `messages`). */
export const validateProfile = (input: ProfileInput): Either.Either<ValidProfileSave, ReadonlyArray<string>> =>
  Either.mapLeft(validateProfileIssues(input), (issues) => issues.map((i) => i.message))

export const validateProfileIssues = (
  input: ProfileInput
): Either.Either<ValidProfileSave, ReadonlyArray<ProfileIssue>> => {
  const problems: ProfileIssue[] = []
  const problem = (field: string, code: ProfileProblemCode, text: string, max?: number) =>
    problems.push({ field, code, message: `${field}: ${text}`, ...(max === undefined ? {} : { max }) })
  const required = (name: string, value: string | null) => {
    if (value === null) problem(name, "REQUIRED", "required")
    return value
  }
  const maxLength = (name: string, value: string | null, max: number) => {
    if (value !== null && value.length > max) problem(name, "TOO_LONG", `at most ${max} characters`, max)
  }

  const companyName = required("companyName", clean(input.companyName))
  maxLength("companyName", companyName, PROFILE_LIMITS.companyName)

  const inn = required("inn", compact(input.inn))
  let kind: InnKind | undefined
  if (inn !== null) {
    const c = checkInn(inn)
    if (c._tag === "Invalid") problem("inn", c.code, c.reason)
    else kind = c.kind
  }

  const kppRaw = compact(input.kpp)
  const kpp = kppRaw === null ? null : kppRaw.toUpperCase()
  if (kpp !== null && !isValidKpp(kpp))
    problem("kpp", "KPP_FORMAT", "must be 9 characters: 4 digits, 2 digits or letters A-Z, 3 digits")
  if (kind === "organization" && kpp === null)
    problem("kpp", "KPP_REQUIRED_FOR_ORGANIZATION", "required for an organisation (10-digit INN)")
  if (kind === "individual" && kpp !== null)
    problem("kpp", "KPP_FORBIDDEN_FOR_INDIVIDUAL", "a sole proprietor (12-digit INN) has no KPP; omit it")

  const ogrn = compact(input.ogrn)
  if (ogrn !== null) {
    const wrong = ogrnIssue(ogrn, kind)
    if (wrong !== undefined) problem("ogrn", wrong.code, wrong.message)
  }

  const legalAddress = required("legalAddress", clean(input.legalAddress))
  maxLength("legalAddress", legalAddress, PROFILE_LIMITS.legalAddress)
  const postalAddress = clean(input.postalAddress)
  maxLength("postalAddress", postalAddress, PROFILE_LIMITS.postalAddress)

  const email = required("email", compact(input.email))
  if (email !== null && !isValidEmail(email))
    problem("email", "EMAIL_FORMAT", "must be an e-mail address like accounting@example.ru")

  const phone = clean(input.phone)
  if (phone !== null && !/^\+?[\d\s()-]{5,32}$/.test(phone))
    problem("phone", "PHONE_FORMAT", "digits, spaces, parentheses, dashes and a leading + only (5 to 32 characters)")

  const revision = input.expectedProfileRevision
  if (revision === null || revision === undefined)
    problem(
      "expectedProfileRevision",
      "REVISION_REQUIRED",
      `required; take it from GET /v1/billing/legal-invoices/profile (${NO_PROFILE_REVISION} before the first save)`
    )
  else if (!Number.isSafeInteger(revision) || revision < NO_PROFILE_REVISION)
    problem("expectedProfileRevision", "REVISION_INVALID", "must be an integer ≥ 0")

  if (
    problems.length > 0 ||
    companyName === null ||
    inn === null ||
    legalAddress === null ||
    email === null ||
    revision === null ||
    revision === undefined
  )
    return Either.left(problems)
  return Either.right({
    requisites: { companyName, inn, kpp, ogrn, legalAddress, postalAddress, email, phone },
    expectedRevision: revision
  })
}
