/**
 * The tariff resource (spec "Tariff"): the plan earned by lifetime spend, the plan an operator
 * assigned, and the effective plan = the higher of the two. Pure: the service feeds it the
 * assigned plan and the lifetime confirmed spend read from the ledger.
 */
import { Schema } from "effect"
import { type Minor, minorToFranks } from "../../internal/money.js"
import { higherPlan, Plan, planRank, plans } from "../Plan.js"
import { type TariffConfig, tierOf, tiersByRank } from "../TariffConfig.js"

export const TariffView = Schema.Struct({
  plan: Plan.annotations({ description: "Effective plan: the higher of the assigned and the earned plan" }),
  assignedPlan: Plan.annotations({ description: "Plan assigned by the operator (base unless changed)" }),
  earnedPlan: Plan.annotations({ description: "Plan earned by lifetime confirmed spend" }),
  lifetimeSpend: Schema.Number.annotations({ description: "Lifetime confirmed spend, ₣" }),
  nextPlan: Schema.NullOr(Plan).annotations({ description: "The tier above the effective plan; null on the top tier" }),
  spendRequiredForNextPlan: Schema.NullOr(Schema.Number).annotations({
    description: "Further lifetime spend, ₣, needed to earn nextPlan; null on the top tier"
  }),
  discountPercent: Schema.Number.annotations({
    description: "Discount of the effective plan against the base price list, %"
  })
}).annotations({ identifier: "Tariff" })
export type TariffView = typeof TariffView.Type

/** The highest plan whose threshold the lifetime spend has reached (exactly at it counts). */
export const earnedPlan = (config: TariffConfig, lifetimeSpendMinor: Minor): Plan => {
  let earned: Plan = "base"
  for (const t of tiersByRank(config)) if (lifetimeSpendMinor >= t.minLifetimeSpendMinor) earned = t.plan
  return earned
}

export const effectivePlan = (config: TariffConfig, assigned: Plan, lifetimeSpendMinor: Minor): Plan =>
  higherPlan(assigned, earnedPlan(config, lifetimeSpendMinor))

export const discountPercentOf = (config: TariffConfig, assigned: Plan, lifetimeSpendMinor: Minor): number =>
  tierOf(config, effectivePlan(config, assigned, lifetimeSpendMinor)).discountPercent

export const tariffView = (config: TariffConfig, assignedPlan: Plan, lifetimeSpendMinor: Minor): TariffView => {
  const earned = earnedPlan(config, lifetimeSpendMinor)
  const plan = higherPlan(assignedPlan, earned)
  const nextPlan = plans[planRank(plan) + 1] ?? null
  // nextPlan is above the earned plan, so its threshold is above the spend and this is positive;
  // an assigned plan does not count as spend: earning the next tier needs its whole threshold.
  const spendRequiredMinor =
    nextPlan === null ? null : Math.max(0, tierOf(config, nextPlan).minLifetimeSpendMinor - lifetimeSpendMinor)
  return {
    plan,
    assignedPlan,
    earnedPlan: earned,
    lifetimeSpend: minorToFranks(lifetimeSpendMinor),
    nextPlan,
    spendRequiredForNextPlan: spendRequiredMinor === null ? null : minorToFranks(spendRequiredMinor),
    discountPercent: tierOf(config, plan).discountPercent
  }
}
