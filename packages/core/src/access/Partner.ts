/**
 * Partners: the tenants of a Frank deployment. The operator creates them through the admin API.
 */
import type { PartnerId } from "../EntityIds.js"
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"

/** A partner: the tenant every record of the engine belongs to. */
export interface Partner {
  readonly id: PartnerId
  readonly name: string
  readonly createdAt: number
}

/** The partner store's operations: create a partner and find one by id. */
export interface PartnerStoreShape {
  readonly create: (partner: Partner) => Effect.Effect<void, StoreError>
  readonly get: (id: PartnerId) => Effect.Effect<Partner | undefined, StoreError>
}

/** Port: where partners are kept. */
export class PartnerStore extends Context.Tag("@frank/core/PartnerStore")<PartnerStore, PartnerStoreShape>() {}
