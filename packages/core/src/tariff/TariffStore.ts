/** The storage port of tariff plan assignment: the plan an operator assigned to a partner. */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import type { Plan } from "./Plan.js"
import type { PartnerId } from "../EntityIds.js"

export interface TariffStoreShape {
  /** `base` when none was assigned. */
  readonly assignedPlan: (partnerId: PartnerId) => Effect.Effect<Plan, StoreError>
  readonly setAssignedPlan: (partnerId: PartnerId, plan: Plan) => Effect.Effect<void, StoreError>
}

export class TariffStore extends Context.Tag("@frank/core/TariffStore")<TariffStore, TariffStoreShape>() {}
