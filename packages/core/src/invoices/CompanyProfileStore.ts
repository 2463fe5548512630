/**
 * Storage port of company profiles. A save is conditional on the revision the caller read, so
 * of two concurrent saves from the same revision exactly one wins (optimistic concurrency, no
 * lock held across the request).
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import type { CompanyProfile, CompanyRequisites } from "./CompanyProfile.js"
import type { PartnerId } from "../EntityIds.js"

export type ProfileSave =
  | { readonly _tag: "Saved"; readonly profile: CompanyProfile }
  /** The stored revision was not the expected one (0: there is no profile yet). */
  | { readonly _tag: "Stale"; readonly currentRevision: number }

/** The operations of the company profile store port. */
export interface CompanyProfileStoreShape {
  /** The partner's saved company requisites, if any. */
  readonly get: (partnerId: PartnerId) => Effect.Effect<CompanyProfile | undefined, StoreError>
  /**
   * Creates the profile at revision 1 when `expectedRevision` is 0 and none exists; otherwise
   * replaces it and increments the revision when the stored revision equals `expectedRevision`.
   */
  readonly save: (
    partnerId: PartnerId,
    requisites: CompanyRequisites,
    expectedRevision: number,
    now: number
  ) => Effect.Effect<ProfileSave, StoreError>
}

/** Port: where company profiles are kept. */
export class CompanyProfileStore extends Context.Tag("@frank/core/CompanyProfileStore")<
  CompanyProfileStore,
  CompanyProfileStoreShape
>() {}
