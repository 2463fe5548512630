/**
 * The tariff resource (spec "Tariff"): effective plan = the higher of assigned and earned.
 */
import { Schema } from "effect"
import { type Minor, minorToFranks } from "../Money.js"
import { Plan } from "./Plan.js"
import type { TariffConfig, TariffTier } from "./TariffConfig.js"

export const TariffView = Schema.Struct({
  plan: Plan.annotations({ description: "Effective plan: the higher of the assigned and the earned plan" }),
  assignedPlan: Plan,
  earnedPlan: Plan,
  lifetimeSpend: Schema.Number.annotations({ description: "Lifetime confirmed spend, ₣" }),
  nextPlan: Schema.NullOr(Plan),
  spendRequiredForNextPlan: Schema.NullOr(Schema.Number).annotations({ description: "Further lifetime spend, ₣, to earn nextPlan" }),
  discountPercent: Schema.Number
}).annotations({ identifier: "Tariff" })
export type TariffView = typeof TariffView.Type

const order = Plan.literals
const rank = (p: Plan) => order.indexOf(p)

const tierOf = (config: TariffConfig, plan: Plan): TariffTier => config.tiers.find((t) => t.plan === plan)!

export const earnedPlan = (config: TariffConfig, lifetimeSpendMinor: Minor): Plan => {
  let earned: Plan = "base"
  for (const t of config.tiers) if (lifetimeSpendMinor >= t.minLifetimeSpendMinor && rank(t.plan) > rank(earned)) earned = t.plan
  return earned
}

export const effectivePlan = (config: TariffConfig, assigned: Plan, lifetimeSpendMinor: Minor): Plan => {
  const earned = earnedPlan(config, lifetimeSpendMinor)
  return rank(assigned) >= rank(earned) ? assigned : earned
}

export const discountPercentOf = (config: TariffConfig, assigned: Plan, lifetimeSpendMinor: Minor): number =>
  tierOf(config, effectivePlan(config, assigned, lifetimeSpendMinor)).discountPercent

export const tariffView = (config: TariffConfig, assigned: Plan, lifetimeSpendMinor: Minor): TariffView => {
  const earned = earnedPlan(config, lifetimeSpendMinor)
  const plan = rank(assigned) >= rank(earned) ? assigned : earned
  const next = order[rank(plan) + 1]
  const nextTier = next === undefined ? undefined : tierOf(config, next)
  return {
    plan,
    assignedPlan: assigned,
    earnedPlan: earned,
    lifetimeSpend: minorToFranks(lifetimeSpendMinor),
    nextPlan: next ?? null,
    spendRequiredForNextPlan: nextTier === undefined ? null : minorToFranks(Math.max(0, nextTier.minLifetimeSpendMinor - lifetimeSpendMinor)),
    discountPercent: tierOf(config, plan).discountPercent
  }
}
