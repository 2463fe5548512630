/**
 * Databases made by earlier builds keep working: a schema restored from a dump of what a80e8dd's
 * migrations made (fixtures/schema-a80e8dd.sql, the last build whose migrations were TypeScript)
 * is migrated by this build's `.sql` files, and then dumps exactly like a schema this build
 * migrated from nothing. Equal dumps mean the frozen files recreate that history statement for
 * statement (function bodies are dumped verbatim) and that the later files apply on top of it.
 * PostgreSQL only (pg_dump); CI sets DATABASE_URL.
 */
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import pg from "pg"
import {
  migrationsDirectory,
  pgliteLayer,
  postgresLayer,
  postgresTestDatabase,
  runMigrations,
  withSearchPath
} from "../src/sql/index.js"

const url = process.env.DATABASE_URL
const FIXTURE = new URL("./fixtures/schema-a80e8dd.sql", import.meta.url)
const FIXTURE_SCHEMA = "frank_a80e8dd"
/** The highest migration id a80e8dd had. */
const FIXTURE_LATEST = 14

/** `pg_dump --schema-only` of one schema, its name replaced and psql's random `\restrict` keys left out. */
const schemaDump = (databaseUrl: string, schema: string): string =>
  execFileSync("pg_dump", ["--schema-only", "--no-owner", "--no-privileges", `--schema=${schema}`, databaseUrl], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
    .split("\n")
    .filter((line) => !/^\\(un)?restrict /.test(line))
    .join("\n")
    .replaceAll(schema, "<schema>")

/** Runs `text` (several statements) on a connection of its own. */
const runScript = (databaseUrl: string, text: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  })

const migrationRows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<{
      migrationId: number
      name: string
    }>`SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id`
)

describe("migration history", () => {
  it.live("PGlite applies every file of the migrations folder in id order, under its file's id and name", () =>
    Effect.gen(function* () {
      const files = readdirSync(migrationsDirectory).filter((f) => f.endsWith(".sql"))
      const applied = yield* runMigrations
      expect(applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}.sql`)).toEqual(files.sort())
      expect(yield* runMigrations).toEqual([])
    }).pipe(Effect.provide(pgliteLayer()), Effect.scoped)
  )

  // Registered only when a server exists (CI sets DATABASE_URL).
  if (url !== undefined && url.length > 0)
    it.live("a database made by a80e8dd's migrations, migrated by this build, dumps exactly like a fresh one", () =>
      Effect.gen(function* () {
        // Fresh: this build's migrations on an empty schema, dumped before its layer drops it.
        const [freshSchema, freshRows] = yield* Effect.provide(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
            return [schemaDump(url, row?.schema ?? ""), yield* migrationRows] as const
          }),
          postgresTestDatabase(url)
        )
        expect(freshSchema).toContain("CREATE TABLE <schema>.webhook_deliveries")

        // Restored: the fixture under a new name, then this build's migrator on it.
        const restored = `frank_t_${randomUUID().replaceAll("-", "")}`
        yield* Effect.addFinalizer(() => Effect.ignore(runScript(url, `DROP SCHEMA IF EXISTS ${restored} CASCADE`)))
        yield* runScript(url, readFileSync(FIXTURE, "utf8").replaceAll(FIXTURE_SCHEMA, restored))
        const [applied, restoredRows] = yield* Effect.provide(
          Effect.all([runMigrations, migrationRows]),
          postgresLayer(Redacted.make(withSearchPath(url, restored)), { maxConnections: 1 })
        )

        // Only what came after a80e8dd ran; ids and names of the history are the ones recorded.
        expect(applied.map(([id]) => id)).toEqual(
          freshRows.filter((r) => r.migrationId > FIXTURE_LATEST).map((r) => r.migrationId)
        )
        expect(restoredRows).toEqual(freshRows)
        expect(schemaDump(url, restored)).toEqual(freshSchema)
      }).pipe(Effect.scoped)
    )
})
