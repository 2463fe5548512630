/** The storage port of tariff plan assignment: the plan an operator assigned to a partner. */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import type { Plan } from "./Plan.js"

export interface TariffStoreShape {
  /** `base` when none was assigned. */
  readonly assignedPlan: (partnerId: string) => Effect.Effect<Plan, StoreError>
  readonly setAssignedPlan: (partnerId: string, plan: Plan) => Effect.Effect<void, StoreError>
}

export class TariffStore extends Context.Tag("@frank/core/TariffStore")<TariffStore, TariffStoreShape>() {}
