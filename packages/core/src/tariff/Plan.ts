import { Schema } from "effect"

/** Tariff plans, lowest first: the order is the ranking (a later plan is a higher tier). */
export const Plan = Schema.Literal("base", "pro", "max", "ultra")
export type Plan = typeof Plan.Type

export const plans: ReadonlyArray<Plan> = Plan.literals

/** Position of a plan in the ranking; used to pick "the higher of" two plans. */
export const planRank = (plan: Plan): number => plans.indexOf(plan)

export const higherPlan = (a: Plan, b: Plan): Plan => (planRank(a) >= planRank(b) ? a : b)
