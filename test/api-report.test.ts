/**
 * The published surface is reviewed as a diff: etc/*.api.md must match what the sources export,
 * every reachable name of core's entry points needs a TSDoc line, and core's root stays within
 * its budget of names. `npm run api:report` regenerates the reports.
 */
import fs from "node:fs"
import { describe, expect, it } from "vitest"
import { bareReExports, buildReports, reportPath } from "../scripts/api-report.js"

const reports = buildReports()

describe("API report", () => {
  it.each(reports.map((r) => [r.name, r] as const))("%s matches its committed report", (_name, report) => {
    const committed = fs.existsSync(reportPath(report.report)) ? fs.readFileSync(reportPath(report.report), "utf8") : ""
    if (committed !== report.text)
      expect.fail(
        `The public surface of ${report.name} changed but ${report.report} was not regenerated. ` +
          "Run `npm run api:report` and commit the diff, so reviewers see the change."
      )
  })

  it.each(reports.filter((r) => r.requireDocs).map((r) => [r.name, r] as const))(
    "%s documents every reachable name",
    (_name, report) => {
      const undocumented = report.names.filter((n) => !n.documented).map((n) => n.path)
      expect(undocumented, `names of ${report.name} without a /** TSDoc */ line on their declaration`).toEqual([])
    }
  )

  it("keeps @frank/core's root within its budget of names", () => {
    const core = reports.find((r) => r.name === "@frank/core")!
    console.info(`@frank/core root: ${core.names.length} reachable names (limit ${core.limit})`)
    expect(core.names.length).toBeLessThanOrEqual(core.limit!)
  })

  it("finds no bare `export * from` in package sources", () => {
    expect(bareReExports()).toEqual([])
  })
})
