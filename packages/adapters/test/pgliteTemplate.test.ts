/**
 * The PGlite template: a new data directory is a copy of the build's initialised cluster, which
 * opens as the same database initdb would have made (same catalogs, same migrated schema), and
 * the copy only ever lands whole in a directory that was missing or empty.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Migrations, PgliteDatabase } from "../src/index.js"
import { pgliteVersion, seedFromTemplate, templateUsable } from "../src/sql/pgliteTemplate.js"

const scratch = mkdtempSync(join(tmpdir(), "frank-template-test-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let n = 0
const fresh = () => join(scratch, `d${++n}`)

/** A stand-in template: two files, a subfolder and a stamp naming `version`. */
const fakeTemplate = (version: string) => {
  const dir = fresh()
  mkdirSync(join(dir, "base", "1"), { recursive: true })
  writeFileSync(join(dir, "PG_VERSION"), "18\n")
  writeFileSync(join(dir, "base", "1", "1255"), "catalog")
  writeFileSync(join(dir, "frank-pglite-template.json"), JSON.stringify({ pglite: version }))
  return dir
}

describe("seedFromTemplate", () => {
  it("copies a usable template into a missing directory, without its stamp and leaving no scratch copy", async () => {
    const template = fakeTemplate(pgliteVersion())
    const parent = fresh()
    mkdirSync(parent)
    const dataDir = join(parent, "pgdata")
    expect(await seedFromTemplate(dataDir, template)).toBe(true)
    expect(readFileSync(join(dataDir, "base", "1", "1255"), "utf8")).toBe("catalog")
    expect(readdirSync(dataDir).sort()).toEqual(["PG_VERSION", "base"])
    expect(readdirSync(parent)).toEqual(["pgdata"])
    // Owner-only, as initdb leaves a cluster.
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dataDir, "base", "1", "1255")).mode & 0o777).toBe(0o600)
  })

  it("fills an empty directory, and leaves one that holds anything alone", async () => {
    const template = fakeTemplate(pgliteVersion())
    const empty = fresh()
    mkdirSync(empty)
    expect(await seedFromTemplate(empty, template)).toBe(true)
    expect(existsSync(join(empty, "PG_VERSION"))).toBe(true)

    const used = fresh()
    mkdirSync(used)
    writeFileSync(join(used, "postmaster.opts"), "mine")
    expect(await seedFromTemplate(used, template)).toBe(false)
    expect(readdirSync(used)).toEqual(["postmaster.opts"])
  })

  it("ignores a template made by another PGlite version, or none at all", async () => {
    const other = fakeTemplate("0.0.1")
    expect(templateUsable(other)).toBe(false)
    const dataDir = fresh()
    expect(await seedFromTemplate(dataDir, other)).toBe(false)
    expect(existsSync(dataDir)).toBe(false)
    expect(templateUsable(fresh())).toBe(false)
    expect(await seedFromTemplate(dataDir, fresh())).toBe(false)
  })
})

/** What a cluster is, as far as Frank can tell: its databases, settings, catalogs and Frank's schema. */
const describeCluster = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = (text: string) => sql.unsafe<Record<string, unknown>>(text)
  return {
    systemIdentifier: (yield* rows("SELECT system_identifier::text AS id FROM pg_control_system()"))[0]?.id,
    databases: yield* rows(
      "SELECT datname, pg_encoding_to_char(encoding) AS encoding, datcollate, datctype, datlocprovider FROM pg_database ORDER BY datname"
    ),
    settings: yield* rows(
      "SELECT name, setting FROM pg_settings WHERE name IN ('shared_buffers', 'fsync', 'server_encoding', 'lc_collate', 'TimeZone', 'search_path') ORDER BY name"
    ),
    catalogs: yield* rows(
      "SELECT n.nspname, count(*)::int AS relations FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace GROUP BY n.nspname ORDER BY n.nspname"
    ),
    columns: yield* rows(
      "SELECT table_name, column_name, data_type, column_default, is_nullable FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2"
    ),
    indexes: yield* rows("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname"),
    functions: yield* rows(
      "SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() ORDER BY p.proname, def"
    ),
    migrations: yield* rows("SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id")
  }
})

const migratedCluster = (dataDir: string, template?: false) =>
  Effect.provide(Effect.zipRight(Migrations.run, describeCluster), PgliteDatabase.layerWith({ dataDir, template }))

describe("a data directory seeded from the build's template", () => {
  it.live(
    "opens as the cluster initdb makes: same catalogs, settings and migrated schema",
    () =>
      Effect.gen(function* () {
        expect(templateUsable(), "no usable template: `node scripts/build-if-stale.mjs` makes it").toBe(true)
        const seeded = yield* migratedCluster(fresh())
        const again = yield* migratedCluster(fresh())
        const initdb = yield* migratedCluster(fresh(), false)
        // Copies of one cluster share its identifier; initdb makes a new one.
        expect(again.systemIdentifier).toBe(seeded.systemIdentifier)
        expect(initdb.systemIdentifier).not.toBe(seeded.systemIdentifier)
        const { systemIdentifier: _a, ...seededRest } = seeded
        const { systemIdentifier: _b, ...initdbRest } = initdb
        expect(seededRest).toEqual(initdbRest)
        expect(seeded.settings).toContainEqual({ name: "shared_buffers", setting: "2048" })
        expect(seeded.columns.length).toBeGreaterThan(100)
      }).pipe(Effect.scoped),
    180_000
  )
})
