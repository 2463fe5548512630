/**
 * Tariff tiers: the plan a partner earns by lifetime spend and the discount each gives against
 * the base price list. Defaults per docs/contract.md §5; operators may configure their own, so the
 * schema checks everything `tariffView` relies on (every plan exactly once, base at 0, thresholds
 * rising with the plan) and names the offending tier in each message.
 */
import { Either, ParseResult, Schema } from "effect"
import { MINOR_PER_FRANK } from "../internal/money.js"
import { Plan, planRank, plans } from "./Plan.js"

export const TariffTier = Schema.Struct({
  plan: Plan.annotations({
    message: (issue) => ({
      message: `must be one of ${plans.map((p) => `"${p}"`).join(", ")}; got ${JSON.stringify(issue.actual)}`,
      override: true
    })
  }),
  /** Lifetime confirmed spend, in minor units (₣ × 100), from which the plan is earned. */
  minLifetimeSpendMinor: Schema.Int.annotations({ message: () => "must be an integer number of minor units" }).pipe(
    Schema.nonNegative({ message: () => "must be ≥ 0" })
  ),
  discountPercent: Schema.Int.annotations({ message: () => "must be an integer percent" }).pipe(
    Schema.between(0, 100, { message: () => "must be between 0 and 100" })
  )
})
export type TariffTier = typeof TariffTier.Type

/** Rules between tiers; each issue carries the path of the tier it is about. */
const tierIssues = (tiers: ReadonlyArray<TariffTier>): Array<Schema.FilterIssue> => {
  const issues: Array<Schema.FilterIssue> = []
  const indexOf = new Map<Plan, number>()
  tiers.forEach((t, i) => {
    if (indexOf.has(t.plan)) issues.push({ path: [i, "plan"], message: `plan ${t.plan} appears more than once` })
    else indexOf.set(t.plan, i)
  })
  for (const p of plans)
    if (!indexOf.has(p)) issues.push({ path: [], message: `tier ${p} is missing (every plan needs exactly one tier)` })
  const base = indexOf.get("base")
  if (base !== undefined && tiers[base]!.minLifetimeSpendMinor !== 0)
    issues.push({ path: [base, "minLifetimeSpendMinor"], message: "the base tier must start at 0" })
  // Compare each present plan with the nearest lower present plan, so one bad tier yields one message.
  const present = plans.filter((p) => indexOf.has(p))
  for (let k = 1; k < present.length; k++) {
    const lower = tiers[indexOf.get(present[k - 1]!)!]!
    const i = indexOf.get(present[k]!)!
    const tier = tiers[i]!
    if (tier.minLifetimeSpendMinor <= lower.minLifetimeSpendMinor)
      issues.push({
        path: [i, "minLifetimeSpendMinor"],
        message: `tier ${tier.plan} must need more lifetime spend than ${lower.plan}`
      })
    if (tier.discountPercent < lower.discountPercent)
      issues.push({
        path: [i, "discountPercent"],
        message: `tier ${tier.plan} must not discount less than ${lower.plan}`
      })
  }
  return issues
}

export const TariffConfig = Schema.Struct({
  tiers: Schema.Array(TariffTier).pipe(Schema.filter(tierIssues))
}).annotations({ identifier: "TariffConfig" })
export type TariffConfig = typeof TariffConfig.Type

const franks = (f: number) => f * MINOR_PER_FRANK

/** The tariff tiers of spec "Tariffs". */
export const defaultTariffConfig: TariffConfig = {
  tiers: [
    { plan: "base", minLifetimeSpendMinor: 0, discountPercent: 0 },
    { plan: "pro", minLifetimeSpendMinor: franks(100_000), discountPercent: 5 },
    { plan: "max", minLifetimeSpendMinor: franks(500_000), discountPercent: 10 },
    { plan: "ultra", minLifetimeSpendMinor: franks(2_000_000), discountPercent: 15 }
  ]
}

/**
 * Validates an operator's tariff configuration. The error lists every problem, one per line, each
 * prefixed with its path (e.g. `tiers.1.minLifetimeSpendMinor: tier pro must need more …`).
 */
export const decodeTariffConfig = (input: unknown): Either.Either<TariffConfig, string> =>
  Either.mapLeft(Schema.decodeUnknownEither(TariffConfig, { errors: "all", onExcessProperty: "error" })(input), (e) =>
    ParseResult.ArrayFormatter.formatErrorSync(e)
      .map((i) => `${i.path.length === 0 ? "(root)" : i.path.join(".")}: ${i.message}`)
      .join("\n")
  )

/** The tier of a plan; a decoded config has exactly one per plan. */
export const tierOf = (config: TariffConfig, plan: Plan): TariffTier => {
  const tier = config.tiers.find((t) => t.plan === plan)
  if (tier === undefined) throw new Error(`tariff config has no tier for plan ${plan}`)
  return tier
}

/** Tiers sorted by plan rank (operators may list them in any order). */
export const tiersByRank = (config: TariffConfig): ReadonlyArray<TariffTier> =>
  [...config.tiers].sort((a, b) => planRank(a.plan) - planRank(b.plan))
