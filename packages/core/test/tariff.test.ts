import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import type { Plan } from "../src/tariff/Plan.js"
import { decodeTariffConfig, defaultTariffConfig, TariffConfig } from "../src/tariff/TariffConfig.js"
import { discountPercentOf, earnedPlan, tariffView } from "../src/tariff/internal/tariffView.js"

const F = 100 // minor units per frank
const view = (assigned: Plan, spentMinor: number) => tariffView(defaultTariffConfig, assigned, spentMinor)

describe("tariff view", () => {
  it("a new partner: base, 100 000 ₣ to pro", () =>
    expect(view("base", 0)).toEqual({
      plan: "base",
      assignedPlan: "base",
      earnedPlan: "base",
      lifetimeSpend: 0,
      nextPlan: "pro",
      spendRequiredForNextPlan: 100_000,
      discountPercent: 0
    }))

  // [spend in minor units, earned plan, next plan, ₣ still required, discount %]
  const boundaries: ReadonlyArray<readonly [number, Plan, Plan | null, number | null, number]> = [
    [100_000 * F - 1, "base", "pro", 0.01, 0],
    [100_000 * F, "pro", "max", 400_000, 5],
    [500_000 * F - 1, "pro", "max", 0.01, 5],
    [500_000 * F, "max", "ultra", 1_500_000, 10],
    [2_000_000 * F - 1, "max", "ultra", 0.01, 10],
    [2_000_000 * F, "ultra", null, null, 15]
  ]
  for (const [spent, plan, nextPlan, required, discount] of boundaries)
    it(`${spent / F} ₣ spent: ${plan} (exactly at a threshold earns it)`, () =>
      expect(view("base", spent)).toEqual({
        plan,
        assignedPlan: "base",
        earnedPlan: plan,
        lifetimeSpend: spent / F,
        nextPlan,
        spendRequiredForNextPlan: required,
        discountPercent: discount
      }))

  it("lifetime spend is shown in franks with kopecks", () =>
    expect(view("base", 12_345_678).lifetimeSpend).toBe(123_456.78))

  it("assigned above earned: the assigned plan applies; the next tier still needs its full threshold", () =>
    expect(view("max", 100_000 * F)).toEqual({
      plan: "max",
      assignedPlan: "max",
      earnedPlan: "pro",
      lifetimeSpend: 100_000,
      nextPlan: "ultra",
      spendRequiredForNextPlan: 1_900_000,
      discountPercent: 10
    }))

  it("earned above assigned: the earned plan applies", () =>
    expect(view("pro", 600_000 * F)).toEqual({
      plan: "max",
      assignedPlan: "pro",
      earnedPlan: "max",
      lifetimeSpend: 600_000,
      nextPlan: "ultra",
      spendRequiredForNextPlan: 1_400_000,
      discountPercent: 10
    }))

  it("ultra has no next tier, whether assigned or earned", () => {
    expect(view("ultra", 0)).toMatchObject({
      plan: "ultra",
      earnedPlan: "base",
      nextPlan: null,
      spendRequiredForNextPlan: null,
      discountPercent: 15
    })
    expect(view("base", 9_000_000 * F)).toMatchObject({
      plan: "ultra",
      earnedPlan: "ultra",
      nextPlan: null,
      spendRequiredForNextPlan: null
    })
  })

  it("the effective plan is never below the assigned one, and the discount never falls as spend grows", () => {
    const plans: ReadonlyArray<Plan> = ["base", "pro", "max", "ultra"]
    fc.assert(
      fc.property(
        fc.constantFrom(...plans),
        fc.nat({ max: 3_000_000 * F }),
        fc.nat({ max: 1_000_000 * F }),
        (assigned, spent, more) => {
          const v = view(assigned, spent)
          expect(plans.indexOf(v.plan)).toBe(Math.max(plans.indexOf(assigned), plans.indexOf(v.earnedPlan)))
          expect(discountPercentOf(defaultTariffConfig, assigned, spent + more)).toBeGreaterThanOrEqual(
            v.discountPercent
          )
          // Spending exactly what is still required earns the next plan.
          if (v.nextPlan !== null && v.spendRequiredForNextPlan !== null)
            expect(earnedPlan(defaultTariffConfig, spent + Math.round(v.spendRequiredForNextPlan * F))).toBe(v.nextPlan)
        }
      )
    )
  })
})

describe("tariff configuration", () => {
  const tiers = (...t: Array<[Plan, number, number]>) => ({
    tiers: t.map(([plan, minLifetimeSpendMinor, discountPercent]) => ({ plan, minLifetimeSpendMinor, discountPercent }))
  })

  it("the default configuration is valid", () =>
    expect(decodeTariffConfig(defaultTariffConfig)).toEqual(Either.right(defaultTariffConfig)))

  it("a custom configuration, listed in any order, drives the view", () => {
    const custom = Either.getOrThrow(
      decodeTariffConfig(tiers(["ultra", 30 * F, 40], ["base", 0, 0], ["max", 20 * F, 30], ["pro", 10 * F, 20]))
    )
    expect(tariffView(custom, "base", 25 * F)).toEqual({
      plan: "max",
      assignedPlan: "base",
      earnedPlan: "max",
      lifetimeSpend: 25,
      nextPlan: "ultra",
      spendRequiredForNextPlan: 5,
      discountPercent: 30
    })
    expect(tariffView(custom, "base", 10 * F)).toMatchObject({ plan: "pro", discountPercent: 20 })
  })

  it("rejects an inconsistent configuration, naming every problem and its tier", () => {
    const bad = decodeTariffConfig(tiers(["base", 5, 0], ["pro", 1, 5], ["max", 10, 1]))
    expect(bad).toEqual(
      Either.left(
        [
          "tiers: tier ultra is missing (every plan needs exactly one tier)",
          "tiers.0.minLifetimeSpendMinor: the base tier must start at 0",
          "tiers.1.minLifetimeSpendMinor: tier pro must need more lifetime spend than base",
          "tiers.2.discountPercent: tier max must not discount less than pro"
        ].join("\n")
      )
    )
  })

  it("rejects a plan listed twice and equal thresholds", () =>
    expect(
      decodeTariffConfig(tiers(["base", 0, 0], ["pro", 0, 5], ["max", 10, 10], ["ultra", 20, 15], ["pro", 5, 5]))
    ).toEqual(
      Either.left(
        [
          "tiers.4.plan: plan pro appears more than once",
          "tiers.1.minLifetimeSpendMinor: tier pro must need more lifetime spend than base"
        ].join("\n")
      )
    ))

  it("rejects malformed tiers field by field", () =>
    expect(
      decodeTariffConfig({
        tiers: [
          { plan: "gold", minLifetimeSpendMinor: 0, discountPercent: 0 },
          { plan: "pro", minLifetimeSpendMinor: -1, discountPercent: 101 },
          { plan: "max", minLifetimeSpendMinor: 1.5, discountPercent: 2.5 }
        ]
      })
    ).toEqual(
      Either.left(
        [
          'tiers.0.plan: must be one of "base", "pro", "max", "ultra"; got "gold"',
          "tiers.1.minLifetimeSpendMinor: must be ≥ 0",
          "tiers.1.discountPercent: must be between 0 and 100",
          "tiers.2.minLifetimeSpendMinor: must be an integer number of minor units",
          "tiers.2.discountPercent: must be an integer percent"
        ].join("\n")
      )
    ))

  it("is a schema the host can decode operator input with", () => expect(TariffConfig.ast._tag).toBe("TypeLiteral"))
})
