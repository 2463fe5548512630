/**
 * `npm run crash-campaign -- --kills N`: the long form of the crash campaign (DATABASE_URL must
 * name a PostgreSQL database). Exits 1 when an invariant broke.
 */
import { runCrashCampaign } from "./campaign.js"

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
for (const v of report.violations) console.error(`  ${v}`)
process.exit(report.violations.length === 0 ? 0 : 1)
