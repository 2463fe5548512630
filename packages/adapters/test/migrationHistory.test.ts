/**
 * Databases made by earlier builds keep working: a schema restored from a dump of what a80e8dd's
 * migrations made (fixtures/schema-a80e8dd.sql, the last build whose migrations were TypeScript)
 * is migrated by this build's `.sql` files, and then dumps exactly like a schema this build
 * migrated from nothing. Equal dumps mean the frozen files recreate that history statement for
 * statement (function bodies are dumped verbatim) and that the later files apply on top of it.
 *
 * Builds before Frank had a schema of its own kept it in `public`: such a database (made by the
 * migrations up to the last of those builds, or restored from the fixture) is moved into the
 * schema `frank` by this build's migrator, keeps its rows and the application's own tables in
 * `public`, and dumps like a fresh one; a restart then changes nothing.
 * PostgreSQL only (pg_dump, databases of their own); CI sets DATABASE_URL.
 */
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { Migrator, SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Migrations, PgliteDatabase, PostgresDatabase, TestDatabase } from "../src/index.js"
import { runScript, scratchDatabase } from "./support/scratchDatabase.js"

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
    // The schema's name where it names the schema (`frank.table`, `Schema: frank;`), not in literals such as 'frank'.
    .replace(new RegExp(`(?<![\\w'])${schema}(?=[.;])`, "g"), "<schema>")

/** The highest migration id of the builds that kept Frank in `public`. */
const PUBLIC_ERA_LATEST = 20

/** The migrator of a build that kept Frank in `public`: no schema step, migrations up to `latest`. */
const publicEraMigrator = (latest: number) =>
  Migrator.make({})({
    loader: Effect.map(Migrations.loader, (all) => all.filter(([id]) => id <= latest)),
    table: "effect_sql_migrations"
  })

/** This build's client on `databaseUrl` in `schema`, one connection. */
const client = (databaseUrl: string, schema: string) =>
  PostgresDatabase.layer(Redacted.make(databaseUrl), { maxConnections: 1, schema })

/** What of Frank is left in `public`: relations, routines and types, by name. */
const publicObjects = (databaseUrl: string) =>
  Effect.map(
    runScript(
      databaseUrl,
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
       UNION ALL SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
       UNION ALL SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
         WHERE n.nspname = 'public' AND t.typrelid = 0 AND t.typelem = 0
       ORDER BY 1`
    ),
    (rows) => rows.map((r) => r.name)
  )

/** This build's migrations on an empty schema: its dump and its history, taken before the schema is dropped. */
const freshSchema = (databaseUrl: string) =>
  Effect.provide(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
      return [schemaDump(databaseUrl, row?.schema ?? ""), yield* migrationRows] as const
    }),
    TestDatabase.layerPostgres(databaseUrl)
  )

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
      const files = readdirSync(Migrations.directory).filter((f) => f.endsWith(".sql"))
      const applied = yield* Migrations.run
      expect(applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}.sql`)).toEqual(files.sort())
      expect(yield* Migrations.run).toEqual([])
    }).pipe(Effect.provide(PgliteDatabase.layer), Effect.scoped)
  )

  // Registered only when a server exists (CI sets DATABASE_URL).
  if (url !== undefined && url.length > 0)
    it.live("a database made by a80e8dd's migrations, migrated by this build, dumps exactly like a fresh one", () =>
      Effect.gen(function* () {
        const [fresh, freshRows] = yield* freshSchema(url)
        expect(fresh).toContain("CREATE TABLE <schema>.webhook_deliveries")

        // Restored: the fixture under a new name, then this build's migrator on it.
        const restored = `frank_t_${randomUUID().replaceAll("-", "")}`
        yield* Effect.addFinalizer(() => Effect.ignore(runScript(url, `DROP SCHEMA IF EXISTS ${restored} CASCADE`)))
        yield* runScript(url, readFileSync(FIXTURE, "utf8").replaceAll(FIXTURE_SCHEMA, restored))
        const [applied, restoredRows] = yield* Effect.provide(
          Effect.all([Migrations.run, migrationRows]),
          client(url, restored)
        )

        // Only what came after a80e8dd ran; ids and names of the history are the ones recorded.
        expect(applied.map(([id]) => id)).toEqual(
          freshRows.filter((r) => r.migrationId > FIXTURE_LATEST).map((r) => r.migrationId)
        )
        expect(restoredRows).toEqual(freshRows)
        expect(schemaDump(url, restored)).toEqual(fresh)
      }).pipe(Effect.scoped)
    )

  if (url !== undefined && url.length > 0)
    it.live(
      "a database the public-era builds made in public moves into the schema with its rows, and a restart changes nothing",
      () =>
        Effect.gen(function* () {
          const [fresh, freshRows] = yield* freshSchema(url)
          const old = yield* scratchDatabase(url)
          // The application's own table beside Frank in public, and rows in Frank's tables.
          yield* runScript(old, "CREATE TABLE users (id text PRIMARY KEY); INSERT INTO users VALUES ('u1')")
          yield* Effect.provide(publicEraMigrator(PUBLIC_ERA_LATEST), client(old, "public"))
          yield* runScript(
            old,
            `INSERT INTO ledger_accounts (partner_id, total_minor) VALUES ('p_old', 700);
             INSERT INTO webhook_endpoints (partner_id, id, url, secret, active, created_at, updated_at)
               VALUES ('p_old', gen_random_uuid(), 'https://r.example/h', 'c2VjcmV0', true, 1, 1)`
          )

          // Two hosts start at once on the old database: one moves it, both then find it moved.
          const [first, second] = yield* Effect.all(
            [
              Effect.provide(Migrations.run, client(old, "frank")),
              Effect.provide(Migrations.run, client(old, "frank"))
            ],
            { concurrency: 2 }
          )
          const pending = freshRows.filter((r) => r.migrationId > PUBLIC_ERA_LATEST).map((r) => r.migrationId)
          expect([...first, ...second].map(([id]) => id).sort((a, b) => a - b)).toEqual(pending)

          expect(yield* publicObjects(old)).toEqual(["users", "users_pkey"])
          expect(schemaDump(old, "frank")).toEqual(fresh)
          const [rows, entrySeq, moved, history, again] = yield* Effect.provide(
            Effect.gen(function* () {
              const sql = yield* SqlClient.SqlClient
              return [
                yield* sql`SELECT partner_id, total_minor FROM ledger_accounts`,
                // The identity sequence moved with its table and still numbers new rows.
                yield* sql`INSERT INTO ledger_entries (partner_id, id, type, kind, amount_minor, label, description, occurred_at,
                    account_seq, type_seq)
                  VALUES ('p_old', gen_random_uuid(), 'topup', 'bonus', 5, 'Bonus', 'after the move', 2, 1, 1) RETURNING seq`,
                // Moved functions find their tables (unqualified in their bodies) in the schema.
                yield* sql`SELECT (SELECT count(*) FROM webhook_claim_due(10, 20, 5, 'token'))::int AS claimed,
                  webhook_delete_expired_deliveries(10, 5) AS deleted`,
                yield* migrationRows,
                yield* Migrations.run
              ] as const
            }),
            client(old, "frank")
          )
          expect(rows).toEqual([{ partnerId: "p_old", totalMinor: 700 }])
          expect(entrySeq).toEqual([{ seq: 1 }])
          expect(moved).toEqual([{ claimed: 0, deleted: 0 }])
          expect(history).toEqual(freshRows)
          expect(again).toEqual([])
          expect(yield* publicObjects(old)).toEqual(["users", "users_pkey"])
          expect(yield* runScript(old, "SELECT id FROM public.users")).toEqual([{ id: "u1" }])
        }).pipe(Effect.scoped)
    )

  if (url !== undefined && url.length > 0)
    it.live("a80e8dd's database in public moves into the schema, then its later migrations apply there", () =>
      Effect.gen(function* () {
        const [fresh, freshRows] = yield* freshSchema(url)
        const old = yield* scratchDatabase(url)
        const inPublic = readFileSync(FIXTURE, "utf8")
          .replace(`CREATE SCHEMA ${FIXTURE_SCHEMA};`, "")
          .replaceAll(FIXTURE_SCHEMA, "public")
        yield* runScript(old, inPublic)
        const [applied, rows] = yield* Effect.provide(Effect.all([Migrations.run, migrationRows]), client(old, "frank"))
        expect(applied.map(([id]) => id)).toEqual(
          freshRows.filter((r) => r.migrationId > FIXTURE_LATEST).map((r) => r.migrationId)
        )
        expect(rows).toEqual(freshRows)
        expect(yield* publicObjects(old)).toEqual([])
        expect(schemaDump(old, "frank")).toEqual(fresh)
      }).pipe(Effect.scoped)
    )

  if (url !== undefined && url.length > 0)
    it.live("another application's migration history in public stays there; Frank starts fresh in its schema", () =>
      Effect.gen(function* () {
        const db = yield* scratchDatabase(url)
        yield* runScript(
          db,
          `CREATE TABLE effect_sql_migrations (migration_id integer PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), name text NOT NULL);
           INSERT INTO effect_sql_migrations (migration_id, name) VALUES (1, 'create_users');
           CREATE TABLE users (id text PRIMARY KEY)`
        )
        const applied = yield* Effect.provide(Migrations.run, client(db, "frank"))
        expect(applied).toHaveLength(Migrations.count)
        expect(yield* runScript(db, "SELECT migration_id, name FROM public.effect_sql_migrations")).toEqual([
          { migration_id: 1, name: "create_users" }
        ])
        expect(yield* publicObjects(db)).toEqual([
          "effect_sql_migrations",
          "effect_sql_migrations_pkey",
          "users",
          "users_pkey"
        ])
      }).pipe(Effect.scoped)
    )
})
