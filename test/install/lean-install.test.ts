/**
 * What an embedder pays for ledger + webhooks on PostgreSQL: @frank/core and @frank/adapters
 * packed as published and installed into a fresh project, with npm adding their required peers
 * (effect, @effect/platform, @effect/sql, @effect/sql-pg) and none of the optional ones (the
 * tokenizer, PGlite, PDF, QR codes, media probes, uPlot). Measures node_modules beyond effect and
 * @effect/* (the budget of issue 37: 15 MB), runs ledger + webhooks on DATABASE_URL from it, and
 * checks that each heavy feature, when used, names the package to install. Part of
 * `npm run test:install`; needs DATABASE_URL (CI sets it).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildIfStale, installTarballs, type Packed, packAll, runAsync, treeBytes } from "./packInstall.js"

/** Issue 37: ledger + webhooks on PostgreSQL within 15 MB beyond effect and @effect/*. */
const BUDGET_BYTES = 15_000_000

/** The optional peers of core and adapters: none of them is installed by the lean install. */
const OPTIONAL = [
  "gpt-tokenizer",
  "@electric-sql/pglite",
  "@electric-sql/pglite-socket",
  "dejavu-fonts-ttf",
  "file-type",
  "image-size",
  "mediainfo.js",
  "music-metadata",
  "pdfkit",
  "qrcode",
  "unpdf",
  "uplot"
]

let packed: ReadonlyArray<Packed> = []
let tarballs = ""
let project = ""

beforeAll(async () => {
  await buildIfStale()
  tarballs = mkdtempSync(join(tmpdir(), "frank-tarballs-"))
  packed = await packAll(tarballs)
  project = await installTarballs(packed, tarballs, { only: ["@frank/core", "@frank/adapters"] })
}, 900_000)

afterAll(() => {
  for (const dir of [tarballs, project]) if (dir !== "") rmSync(dir, { recursive: true, force: true })
})

const databaseUrl = process.env.DATABASE_URL ?? ""
const run = (file: string) => runAsync(process.execPath, [file], project, { ...process.env, DATABASE_URL: databaseUrl })

describe("ledger + webhooks on PostgreSQL: @frank/core and @frank/adapters alone", () => {
  it("install none of the optional packages", () => {
    const modules = join(project, "node_modules")
    const present = OPTIONAL.filter((name) => existsSync(join(modules, name)))
    expect(present).toEqual([])
  })

  it("fit in 15 MB of node_modules beyond effect and @effect/*", () => {
    const modules = join(project, "node_modules")
    const effects = (path: string) => path === join(modules, "effect") || path === join(modules, "@effect")
    const beyond = treeBytes(modules, effects)
    const all = treeBytes(modules)
    const mb = (bytes: number) => (bytes / 1e6).toFixed(1)
    console.info(
      `lean install (ledger + webhooks on PostgreSQL): ${mb(beyond)} MB of node_modules beyond effect and @effect/* ` +
        `(${mb(all)} MB in all; budget ${mb(BUDGET_BYTES)} MB)`
    )
    expect(beyond).toBeLessThanOrEqual(BUDGET_BYTES)
  })

  it("run the engine program on memory stores (an estimate of a model not priced by tokens)", async () => {
    const r = await run("engine.mjs")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout.match(/^ok /gm)).toHaveLength(4)
  })

  it("run ledger + webhooks on PostgreSQL, delivering billing.settled over HTTP", async () => {
    expect(databaseUrl, "DATABASE_URL: a PostgreSQL database for this test").not.toBe("")
    const r = await run("lean-postgres.mjs")
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0)
    expect(r.stdout).toContain("ok   ledger + webhooks on PostgreSQL")
  })

  it("name the package to install when a heavy feature is used without it", async () => {
    const r = await run("missing-peers.mjs")
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0)
    const lines = r.stdout.trim().split("\n")
    expect(lines).toEqual([
      "gpt-tokenizer: Estimating a token-priced model needs the optional package gpt-tokenizer: npm install gpt-tokenizer",
      "@electric-sql/pglite: The embedded database (PgliteDatabase) needs the optional package @electric-sql/pglite: npm install @electric-sql/pglite",
      "file-type: Importing files needs the optional package file-type: npm install file-type",
      "unpdf: Counting PDF pages needs the optional package unpdf: npm install unpdf"
    ])
  })
})
