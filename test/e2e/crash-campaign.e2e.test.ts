/**
 * The crash campaign in CI: 10 SIGKILLs of the real host on PostgreSQL under a mixed workload,
 * then the checks of test/e2e/crash/campaign.ts. The checks read the database with SQL, so it
 * runs on PostgreSQL: DATABASE_URL, or the machines' local server (docs/contract.md §7).
 */
import { describe, expect, it } from "@effect/vitest"
import { runCrashCampaign } from "./crash/campaign.js"

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

describe("crash campaign: SIGKILL of the real host on PostgreSQL", { timeout: 600_000 }, () => {
  it("10 kills under load: nothing acknowledged is lost, nothing is charged or credited twice", async () => {
    const report = await runCrashCampaign(url, 10)
    console.log(
      `crash campaign: ${report.kills} kills, ${report.acknowledged} acknowledged operations, deliveries ${JSON.stringify(report.deliveries)}`
    )
    expect(report.acknowledged).toBeGreaterThan(20)
    expect(Object.values(report.deliveries).reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    expect(report.violations).toEqual([])
  })
})
