/**
 * The crash campaign in CI: 10 SIGKILLs of the real host on PostgreSQL under a mixed workload,
 * then the checks of test/e2e/crash/campaign.ts. The checks read the database with SQL, so it
 * runs on PostgreSQL: DATABASE_URL, or the machines' local server (docs/contract.md §7). The
 * kills run in parts of a few each, each reported on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type CrashCampaign, startCrashCampaign } from "./crash/campaign.js"
import { describeLeases } from "./crash/leaseLog.js"

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
let campaign: CrashCampaign | undefined
let finished = false

beforeAll(async () => {
  campaign = await startCrashCampaign(url)
}, 120_000)

afterAll(async () => {
  if (!finished) await campaign?.stop()
}, 60_000)

describe("crash campaign: SIGKILL of the real host on PostgreSQL", { timeout: 300_000 }, () => {
  for (const [from, count] of [
    [1, 3],
    [4, 3],
    [7, 4]
  ] as const)
    it(`kills ${from}-${from + count - 1} under load`, async () => {
      await campaign?.kill(count)
    })

  it("10 kills under load: nothing acknowledged is lost, nothing is charged or credited twice", async () => {
    if (campaign === undefined) throw new Error("the campaign did not start")
    finished = true
    const report = await campaign.finish()
    console.log(
      `crash campaign: ${report.kills} kills, ${report.acknowledged} acknowledged operations, deliveries ${JSON.stringify(report.deliveries)}\n${describeLeases(report.leases)}\n${report.sentMarkShortfall.join("\n")}`
    )
    expect(report.kills).toBe(10)
    expect(report.acknowledged).toBeGreaterThan(20)
    expect(Object.values(report.deliveries).reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    expect(report.violations).toEqual([])
  })
})
