/** The storage port of tariff plan assignment: the plan an operator assigned to a partner. */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import type { Plan } from "./Plan.js"
import type { PartnerId } from "../EntityIds.js"

/** The operations of the tariff store port. */
export interface TariffStoreShape {
  /** `base` when none was assigned. */
  readonly assignedPlan: (partnerId: PartnerId) => Effect.Effect<Plan, StoreError>
  /** Records the plan an operator assigned to the partner. */
  readonly setAssignedPlan: (partnerId: PartnerId, plan: Plan) => Effect.Effect<void, StoreError>
}

/** Port: where partners' assigned plans are kept. */
export class TariffStore extends Context.Tag("@frank/core/TariffStore")<TariffStore, TariffStoreShape>() {}
