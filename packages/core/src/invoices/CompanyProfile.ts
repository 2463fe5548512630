import type { PartnerId } from "../EntityIds.js"
/**
 * The company profile a partner invoices under (spec "Company profile"): the payer's requisites
 * printed on every legal-entity invoice, with a revision number for optimistic concurrency. The
 * spec names companyName, inn and email; the other fields are the requisites a Russian invoice
 * carries for the buyer (docs/decisions.md).
 */

/** The payer's requisites, normalized (trimmed; optional fields null when not given). */
export interface CompanyRequisites {
  /** Full legal name, e.g. «ООО "Ромашка"». */
  readonly companyName: string
  /** 10 digits (organisation) or 12 digits (sole proprietor), checksum-valid. */
  readonly inn: string
  /** Required for an organisation, absent for a sole proprietor. */
  readonly kpp: string | null
  /** ОГРН (13 digits) or ОГРНИП (15 digits); optional. */
  readonly ogrn: string | null
  readonly legalAddress: string
  /** Where paper documents go, when it differs from the legal address. */
  readonly postalAddress: string | null
  /** Where the bank and Frank send invoices and closing documents. */
  readonly email: string
  readonly phone: string | null
}

/** A partner's company profile, the legal details its invoices are issued to. */
export interface CompanyProfile extends CompanyRequisites {
  readonly partnerId: PartnerId
  /** 1 on the first save, +1 on every save after it. */
  readonly revision: number
  readonly createdAt: number
  readonly updatedAt: number
}

/** The revision a partner without a profile has: a first PUT sends `expectedProfileRevision: 0`. */
export const NO_PROFILE_REVISION = 0

/** The requisites part of a company profile, without its bookkeeping fields. */
export const requisitesOf = (p: CompanyRequisites): CompanyRequisites => ({
  companyName: p.companyName,
  inn: p.inn,
  kpp: p.kpp,
  ogrn: p.ogrn,
  legalAddress: p.legalAddress,
  postalAddress: p.postalAddress,
  email: p.email,
  phone: p.phone
})

export const PROFILE_LIMITS = {
  companyName: 300,
  legalAddress: 500,
  postalAddress: 500,
  phone: 32
} as const
