/**
 * The database layers: int8 parsing, a persistent PGlite that keeps its rows and migrations
 * across restarts, and PostgreSQL test schemas that isolate test files and vanish afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { Migrations, parseInt8, PgliteDatabase, TestDatabase } from "../src/index.js"

describe("int8 parsing", () => {
  it("parses safe integers exactly and refuses anything a JS number would round", () => {
    expect(parseInt8("0")).toBe(0)
    expect(parseInt8("-42")).toBe(-42)
    expect(parseInt8("9007199254740991")).toBe(Number.MAX_SAFE_INTEGER)
    expect(() => parseInt8("9007199254740992")).toThrow(RangeError)
    expect(() => parseInt8("-9007199254740993")).toThrow(RangeError)
  })

  it.live("bigint columns and count(*) arrive as numbers; an unsafe value fails the query", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{
        big: unknown
        n: unknown
      }>`SELECT 9007199254740991::bigint AS big, count(*) AS n FROM (VALUES (1), (2)) v`
      expect(row).toEqual({ big: Number.MAX_SAFE_INTEGER, n: 2 })
      const error = yield* Effect.flip(sql`SELECT 9007199254740992::bigint AS big`)
      expect(error._tag).toBe("SqlError")
    }).pipe(Effect.provide(PgliteDatabase.layer), Effect.scoped)
  )
})

describe("PgliteDatabase", () => {
  it.live("a data directory keeps rows and applied migrations across restarts", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "frank-pglite-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      const open = PgliteDatabase.layerWith({ dataDir })

      const first = yield* Effect.provide(
        Effect.gen(function* () {
          const applied = yield* Migrations.run
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO ledger_accounts (partner_id, total_minor) VALUES ('p_persist', 12345)`
          return applied.length
        }),
        open
      )
      expect(first).toBe(Migrations.count)

      const [again, rows, recorded] = yield* Effect.provide(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          return [
            (yield* Migrations.run).length,
            yield* sql<{ totalMinor: number }>`SELECT total_minor FROM ledger_accounts WHERE partner_id = 'p_persist'`,
            (yield* sql<{ n: number }>`SELECT count(*) AS n FROM effect_sql_migrations`)[0]?.n
          ] as const
        }),
        open
      )
      expect(again).toBe(0)
      expect(rows).toEqual([{ totalMinor: 12345 }])
      expect(recorded).toBe(Migrations.count)
    }).pipe(Effect.scoped)
  )

  it.live("an in-memory test database starts empty, with every migration applied", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql`SELECT partner_id FROM ledger_accounts`).toEqual([])
      expect((yield* sql<{ n: number }>`SELECT count(*) AS n FROM effect_sql_migrations`)[0]?.n).toBe(Migrations.count)
      expect(yield* Migrations.run).toEqual([])
    }).pipe(Effect.provide(TestDatabase.layerPglite()), Effect.scoped)
  )
})

describe("PostgreSQL test schemas", () => {
  it("withSearchPath adds the schema to the connection options and keeps existing ones", () => {
    const plain = new URL(TestDatabase.withSearchPath("postgres://u@h:5432/db", "frank_t_1"))
    expect(plain.searchParams.get("options")).toBe("-c search_path=frank_t_1")
    const more = new URL(
      TestDatabase.withSearchPath("postgres://u@h:5432/db?options=-c%20statement_timeout%3D5s&sslmode=disable", "s")
    )
    expect(more.searchParams.get("options")).toBe("-c statement_timeout=5s -c search_path=s")
    expect(more.searchParams.get("sslmode")).toBe("disable")
  })

  const url = process.env.DATABASE_URL
  // Registered only when a server exists (CI sets DATABASE_URL).
  if (url !== undefined && url.length > 0)
    it.live("two test databases on one server are isolated, and a released one is dropped", () =>
      Effect.gen(function* () {
        const sqlOf = SqlClient.SqlClient
        const schemaOf = Effect.flatMap(sqlOf, (sql) =>
          Effect.map(sql<{ s: string }>`SELECT current_schema() AS s`, (r) => r[0]?.s ?? "")
        )
        const write = Effect.flatMap(sqlOf, (sql) => sql`INSERT INTO ledger_accounts (partner_id) VALUES ('p_same_id')`)
        const count = Effect.flatMap(sqlOf, (sql) =>
          Effect.map(sql<{ n: number }>`SELECT count(*) AS n FROM ledger_accounts`, (r) => r[0]?.n)
        )
        // B is built and used while A is alive; each sees only its own row under the same key.
        const [schemaA, schemaB] = yield* Effect.provide(
          Effect.gen(function* () {
            const a = yield* schemaOf
            yield* write
            const b = yield* Effect.provide(
              Effect.gen(function* () {
                yield* write
                expect(yield* count).toBe(1)
                return yield* schemaOf
              }),
              TestDatabase.layerPostgres(url)
            )
            expect(yield* count).toBe(1)
            return [a, b] as const
          }),
          TestDatabase.layerPostgres(url)
        )
        expect(schemaA).toMatch(/^frank_t_[0-9a-f]{32}$/)
        expect(schemaB).toMatch(/^frank_t_[0-9a-f]{32}$/)
        expect(schemaB).not.toBe(schemaA)

        const remaining = yield* Effect.promise(async () => {
          const client = new pg.Client({ connectionString: url })
          await client.connect()
          try {
            return (
              await client.query("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = ANY($1)", [
                [schemaA, schemaB]
              ])
            ).rows[0].n
          } finally {
            await client.end()
          }
        })
        expect(remaining).toBe(0)
      })
    )
})
