/**
 * `npm run crash-campaign -- --kills N`: the long form of the crash campaign (DATABASE_URL must
 * name a PostgreSQL database). Exits 1 when an invariant broke.
 */
import { runCrashCampaign } from "./campaign.js"
import { describeLeases } from "./leaseLog.js"

const i = process.argv.indexOf("--kills")
const kills = i >= 0 ? Number(process.argv[i + 1]) : 50
const url = process.env.DATABASE_URL
if (url === undefined || url.length === 0) {
  console.error("DATABASE_URL must name a PostgreSQL database")
  process.exit(2)
}
const started = performance.now()
const report = await runCrashCampaign(url, kills)
console.log(
  `${report.kills} SIGKILLs, ${report.acknowledged} acknowledged operations, ${((performance.now() - started) / 1000).toFixed(0)} s`
)
console.log(describeLeases(report.leases))
const broken = [...report.violations, ...report.sentMarkShortfall]
for (const v of broken) console.error(`  ${v}`)
process.exit(broken.length === 0 ? 0 : 1)
