/**
 * The tariff service: a partner's assigned plan and lifetime spend (read from the ledger), turned
 * into the effective plan and its discount.
 */
import { Context, Effect, Layer } from "effect"
import { LedgerStore } from "../ledger/LedgerStore.js"
import type { StoreError } from "../StoreError.js"
import type { Plan } from "./Plan.js"
import type { TariffConfig } from "./TariffConfig.js"
import { TariffStore } from "./TariffStore.js"
import { discountPercentOf, type TariffView, tariffView } from "./internal/tariffView.js"
import type { PartnerId } from "../EntityIds.js"

/** The tariffs service: a partner's plan and discount. */
export class Tariffs extends Context.Tag("@frank/core/Tariffs")<
  Tariffs,
  {
    /** The partner's plan and discount, as the tariff endpoint shows them. */
    readonly view: (partnerId: PartnerId) => Effect.Effect<TariffView, StoreError>
    /** The discount in percent that the partner's plan gives on estimates and tasks. */
    readonly discountPercent: (partnerId: PartnerId) => Effect.Effect<number, StoreError>
    /** Assigns a plan to the partner (an operator's decision). */
    readonly assign: (partnerId: PartnerId, plan: Plan) => Effect.Effect<void, StoreError>
    /** The tiers in force (the cabinet shows the next plan's discount). */
    readonly config: TariffConfig
  }
>() {
  /** The tariffs service with these tiers, over the `TariffStore`. */
  static readonly layer = (config: TariffConfig) =>
    Layer.effect(
      Tariffs,
      Effect.gen(function* () {
        const ledger = yield* LedgerStore
        const plans = yield* TariffStore
        const inputs = (partnerId: PartnerId) =>
          Effect.all([plans.assignedPlan(partnerId), Effect.map(ledger.totals(partnerId), (t) => t.usedMinor)], {
            concurrency: 2
          })
        return {
          view: (partnerId) =>
            Effect.map(inputs(partnerId), ([assigned, spent]) => tariffView(config, assigned, spent)),
          discountPercent: (partnerId) =>
            Effect.map(inputs(partnerId), ([assigned, spent]) => discountPercentOf(config, assigned, spent)),
          assign: (partnerId, plan) => plans.setAssignedPlan(partnerId, plan),
          config
        }
      })
    )
}
