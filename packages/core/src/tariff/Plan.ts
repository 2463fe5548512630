import { Schema } from "effect"

/** Tariff plans, lowest first. */
export const Plan = Schema.Literal("base", "pro", "max", "ultra")
export type Plan = typeof Plan.Type
