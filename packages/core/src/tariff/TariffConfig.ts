/**
 * Tariff tiers: the plan a partner earns by lifetime spend and the discount each gives against
 * the base price list. Defaults per ARCHITECTURE §5; operators may configure their own.
 */
import { Either, ParseResult, Schema } from "effect"
import { Plan } from "./Plan.js"

export const TariffTier = Schema.Struct({
  plan: Plan,
  /** Lifetime spend (minor units) from which the plan is earned. */
  minLifetimeSpendMinor: Schema.Int.pipe(Schema.nonNegative()),
  discountPercent: Schema.Int.pipe(Schema.between(0, 100))
})
export type TariffTier = typeof TariffTier.Type

const planOrder = Plan.literals

export const TariffConfig = Schema.Struct({ tiers: Schema.Array(TariffTier) }).pipe(
  Schema.filter((c) => {
    const problems: string[] = []
    const plans = c.tiers.map((t) => t.plan)
    for (const p of planOrder) if (!plans.includes(p)) problems.push(`tier ${p} is missing`)
    if (new Set(plans).size !== plans.length) problems.push("each plan may appear once")
    const sorted = [...c.tiers].sort((a, b) => planOrder.indexOf(a.plan) - planOrder.indexOf(b.plan))
    if (sorted[0] !== undefined && sorted[0].minLifetimeSpendMinor !== 0) problems.push("the base tier must start at 0")
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]!.minLifetimeSpendMinor <= sorted[i - 1]!.minLifetimeSpendMinor)
        problems.push(`tier ${sorted[i]!.plan} must need more lifetime spend than ${sorted[i - 1]!.plan}`)
      if (sorted[i]!.discountPercent < sorted[i - 1]!.discountPercent)
        problems.push(`tier ${sorted[i]!.plan} must not discount less than ${sorted[i - 1]!.plan}`)
    }
    return problems.length === 0 ? true : problems.join("; ")
  })
)
export type TariffConfig = typeof TariffConfig.Type

export const defaultTariffConfig: TariffConfig = {
  tiers: [
    { plan: "base", minLifetimeSpendMinor: 0, discountPercent: 0 },
    { plan: "pro", minLifetimeSpendMinor: 100_000 * 100, discountPercent: 5 },
    { plan: "max", minLifetimeSpendMinor: 500_000 * 100, discountPercent: 10 },
    { plan: "ultra", minLifetimeSpendMinor: 2_000_000 * 100, discountPercent: 15 }
  ]
}

/** Validates an operator's tariff configuration, with every problem named. */
export const decodeTariffConfig = (input: unknown): Either.Either<TariffConfig, string> =>
  Either.mapLeft(Schema.decodeUnknownEither(TariffConfig, { errors: "all" })(input), (e) => ParseResult.TreeFormatter.formatErrorSync(e))
