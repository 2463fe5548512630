import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { decodeTariffConfig, defaultTariffConfig, tariffView } from "../src/index.js"

const F = 100 // minor units per frank

describe("tariff", () => {
  it("earns plans exactly at the thresholds of lifetime spend", () => {
    expect(tariffView(defaultTariffConfig, "base", 0)).toEqual({
      plan: "base",
      assignedPlan: "base",
      earnedPlan: "base",
      lifetimeSpend: 0,
      nextPlan: "pro",
      spendRequiredForNextPlan: 100_000,
      discountPercent: 0
    })
    expect(tariffView(defaultTariffConfig, "base", 100_000 * F - 1)).toMatchObject({ plan: "base", spendRequiredForNextPlan: 0.01 })
    expect(tariffView(defaultTariffConfig, "base", 100_000 * F)).toMatchObject({ plan: "pro", earnedPlan: "pro", nextPlan: "max", spendRequiredForNextPlan: 400_000, discountPercent: 5 })
    expect(tariffView(defaultTariffConfig, "base", 500_000 * F)).toMatchObject({ plan: "max", discountPercent: 10 })
    expect(tariffView(defaultTariffConfig, "base", 2_000_000 * F + 5)).toMatchObject({
      plan: "ultra",
      nextPlan: null,
      spendRequiredForNextPlan: null,
      discountPercent: 15,
      lifetimeSpend: 2_000_000.05
    })
  })

  it("the effective plan is the higher of assigned and earned", () => {
    expect(tariffView(defaultTariffConfig, "max", 100_000 * F)).toMatchObject({ plan: "max", assignedPlan: "max", earnedPlan: "pro", nextPlan: "ultra", spendRequiredForNextPlan: 1_900_000, discountPercent: 10 })
    expect(tariffView(defaultTariffConfig, "pro", 600_000 * F)).toMatchObject({ plan: "max", assignedPlan: "pro", earnedPlan: "max" })
  })

  it("accepts a custom configuration and rejects inconsistent ones with every problem named", () => {
    const custom = decodeTariffConfig({
      tiers: [
        { plan: "base", minLifetimeSpendMinor: 0, discountPercent: 0 },
        { plan: "pro", minLifetimeSpendMinor: 10 * F, discountPercent: 20 },
        { plan: "max", minLifetimeSpendMinor: 20 * F, discountPercent: 30 },
        { plan: "ultra", minLifetimeSpendMinor: 30 * F, discountPercent: 40 }
      ]
    })
    expect(Either.isRight(custom)).toBe(true)
    if (Either.isRight(custom)) expect(tariffView(custom.right, "base", 25 * F)).toMatchObject({ plan: "max", discountPercent: 30 })
    const bad = decodeTariffConfig({
      tiers: [
        { plan: "base", minLifetimeSpendMinor: 5, discountPercent: 0 },
        { plan: "pro", minLifetimeSpendMinor: 1, discountPercent: 5 },
        { plan: "max", minLifetimeSpendMinor: 10, discountPercent: 1 }
      ]
    })
    expect(Either.isLeft(bad)).toBe(true)
    if (Either.isLeft(bad)) {
      expect(bad.left).toContain("tier ultra is missing")
      expect(bad.left).toContain("the base tier must start at 0")
      expect(bad.left).toContain("tier pro must need more lifetime spend than base")
      expect(bad.left).toContain("tier max must not discount less than pro")
    }
  })
})
