#!/usr/bin/env node
// Measures the cabinet's first-load JavaScript, gzipped, against the budget of 100 KiB:
// every script the heaviest page (the overview: the cabinet's script and the chart library it
// loads) fetches on first load. Run: node scripts/cabinet-js-budget.mjs  (exit 1 over budget)
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const BUDGET = 100 * 1024
const require = createRequire(fileURLToPath(new URL("../packages/adapters/package.json", import.meta.url)))
const scripts = {
  "cabinet.js": fileURLToPath(new URL("../packages/adapters/assets/cabinet/cabinet.js", import.meta.url)),
  "uplot.js": require.resolve("uplot/dist/uPlot.iife.min.js")
}

let total = 0
for (const [name, path] of Object.entries(scripts)) {
  const bytes = readFileSync(path)
  const gz = gzipSync(bytes, { level: 9 }).length
  total += gz
  console.log(`${name.padEnd(12)} ${String(bytes.length).padStart(8)} B  ${String(gz).padStart(7)} B gzipped`)
}
console.log(
  `first load   ${(total / 1024).toFixed(1)} KiB gzipped of ${BUDGET / 1024} KiB (${((100 * total) / BUDGET).toFixed(0)}%)`
)
process.exit(total <= BUDGET ? 0 : 1)
