/**
 * Frank in a schema of its own (DatabaseSchema): the name rule, nothing of Frank in `public` after
 * a fresh start, engines in different schemas of one database that see nothing of each other
 * (rows, endpoints and the webhook wake-up channel; PGlite serves one schema at a time), an old
 * embedded data directory moved out of `public`, and a database user with no rights on `public`.
 * The PostgreSQL cases need DATABASE_URL (CI sets it) with rights to create databases and roles.
 */
import { randomUUID } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Migrator, SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Access, Events, Ids, Webhooks } from "@frank/core"
import { testPartner } from "@frank/core/testing"
import { Cause, Effect, Layer, Redacted, Ref, Stream } from "effect"
import {
  DatabaseSchema,
  Migrations,
  PgChannelListener,
  PgliteDatabase,
  PostgresDatabase,
  SqlWebhookStore,
  webhookNotifyChannel
} from "../src/index.js"
import { createdNames } from "../src/sql/internal/createdNames.js"
import { runScript, scratchDatabase, scratchRole, urlOf } from "./support/scratchDatabase.js"

/** Relations (identity sequences and indexes aside: they go with their tables), routines and types of a namespace. */
const OBJECTS = (namespace: string) => `
  SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = '${namespace}' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  UNION ALL SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = '${namespace}'
  UNION ALL SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = '${namespace}' AND t.typrelid = 0 AND t.typelem = 0
  ORDER BY 1`

const objectsIn = (namespace: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql.unsafe<{ name: string }>(OBJECTS(namespace)), (rows) => rows.map((r) => r.name))
  )

const countAccounts = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ partnerId: string }>`SELECT partner_id FROM ledger_accounts ORDER BY partner_id`, (rows) =>
    rows.map((r) => r.partnerId)
  )
)

const openAccount = (partnerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO ledger_accounts (partner_id) VALUES (${partnerId})`)

describe("schema names", () => {
  it("accepts lower-case unquoted names up to 48 characters and says why it refuses the others", () => {
    for (const ok of ["frank", "billing_2", "_x", "a".repeat(48)])
      expect(DatabaseSchema.invalidSchemaName(ok)).toBe(undefined)
    for (const bad of [
      "Frank",
      "2frank",
      "fr-ank",
      "fr ank",
      'a"b',
      "",
      "a".repeat(49),
      "pg_frank",
      "information_schema"
    ])
      expect(DatabaseSchema.invalidSchemaName(bad), bad).toMatch(/schema name/)
    expect(webhookNotifyChannel("billing")).toBe("billing.webhooks")
  })

  it.live("a database layer given an invalid schema dies with the reason before connecting", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Effect.provide(Migrations.run, PgliteDatabase.layerWith({ schema: "Bad-Name" })))
      expect(exit._tag).toBe("Failure")
      expect(exit._tag === "Failure" ? Cause.pretty(exit.cause) : "").toMatch(/schema name "Bad-Name"/)
    })
  )
})

describe("PGlite", () => {
  it.live("a fresh start puts every object in schema frank and nothing in public", () =>
    Effect.gen(function* () {
      const applied = yield* Migrations.run
      expect(applied).toHaveLength(Migrations.count)
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql<{ s: string }>`SELECT current_schema() AS s`).toEqual([{ s: "frank" }])
      expect(yield* objectsIn("public")).toEqual([])
      const inFrank = yield* objectsIn("frank")
      expect(inFrank).toContain("effect_sql_migrations")
      // Every object the migrations made is one the move out of public would find by name.
      const created = new Set(
        readdirSync(Migrations.directory)
          .filter((f) => f.endsWith(".sql"))
          .flatMap((f) => createdNames(readFileSync(join(Migrations.directory, f), "utf8")))
      )
      expect(inFrank.filter((name) => name !== "effect_sql_migrations" && !created.has(name))).toEqual([])
    }).pipe(Effect.provide(PgliteDatabase.layer), Effect.scoped)
  )

  it.live("one data directory holds two schemas; each engine sees only its own rows", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "frank-schemas-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      const engine = (schema: string) => PgliteDatabase.layerWith({ dataDir, schema })
      const use = <A, E>(schema: string, body: Effect.Effect<A, E, SqlClient.SqlClient>) =>
        Effect.provide(Effect.zipRight(Migrations.run, body), engine(schema))

      yield* use("alpha", openAccount("p_same"))
      expect(yield* use("beta", countAccounts)).toEqual([])
      yield* use("beta", Effect.zipRight(openAccount("p_same"), openAccount("p_beta")))
      expect(yield* use("alpha", countAccounts)).toEqual(["p_same"])
      expect(yield* use("beta", countAccounts)).toEqual(["p_beta", "p_same"])
      expect(yield* use("alpha", objectsIn("public"))).toEqual([])
    }).pipe(Effect.scoped)
  )

  it.live("a data directory the public-era builds made moves into the schema with its rows", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "frank-old-pgdata-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      // What those builds did: the migrator alone, with public as the search_path.
      const publicEra = Migrator.make({})({ loader: Migrations.loader, table: "effect_sql_migrations" })
      yield* Effect.provide(
        Effect.zipRight(publicEra, openAccount("p_old")),
        PgliteDatabase.layerWith({ dataDir, schema: "public" })
      )
      const [applied, accounts, inPublic] = yield* Effect.provide(
        Effect.all([Migrations.run, countAccounts, objectsIn("public")]),
        PgliteDatabase.layerWith({ dataDir })
      )
      expect(applied).toEqual([])
      expect(accounts).toEqual(["p_old"])
      expect(inPublic).toEqual([])
    }).pipe(Effect.scoped)
  )
})

const url = process.env.DATABASE_URL

/** An engine's webhooks on `databaseUrl` in `schema`, migrated, its in-transaction NOTIFYs carrying `payload`. */
const webhookEngine = (databaseUrl: string, schema: string, payload: string) =>
  Webhooks.Webhooks.layer.pipe(
    Layer.provideMerge(Events.Outbox.layerWithWakeup),
    Layer.provideMerge(SqlWebhookStore.layerWith({ notifyPayload: payload })),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Ids.layer,
        Access.Secrets.layer(Redacted.make("pepper")),
        Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true })
      )
    ),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(PostgresDatabase.layer(Redacted.make(databaseUrl), { maxConnections: 2, schema }))
  )

/** Payloads heard on `channel`, collected from now on. */
const collect = (databaseUrl: string, channel: string) =>
  Effect.gen(function* () {
    const heard = yield* Ref.make<ReadonlyArray<string>>([])
    yield* Effect.forkScoped(
      Stream.runForEach(PgChannelListener.listen({ url: Redacted.make(databaseUrl) }, channel), (p) =>
        Ref.update(heard, (h) => [...h, p])
      )
    )
    return Ref.get(heard)
  })

/** Waits (up to 10 s) until `heard` holds `payload`. */
const awaitHeard = (
  heard: Effect.Effect<ReadonlyArray<string>>,
  payload: string,
  send?: Effect.Effect<unknown, unknown>
) =>
  Effect.gen(function* () {
    for (let i = 0; i < 500; i++) {
      if ((yield* heard).includes(payload)) return
      if (send !== undefined) yield* Effect.ignore(send)
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.dieMessage(`${payload} was never heard`)
  })

if (url !== undefined && url.length > 0)
  describe("PostgreSQL", () => {
    it.live(
      "two engines in different schemas of one database see nothing of each other, nor each other's wake-ups",
      () =>
        Effect.gen(function* () {
          const db = yield* scratchDatabase(url)
          const [a, b] = [`frank_a`, `frank_b`]
          const [payloadA, payloadB] = [`a:${randomUUID()}`, `b:${randomUUID()}`]
          const engineA = yield* Layer.build(webhookEngine(db, a, payloadA))
          const engineB = yield* Layer.build(webhookEngine(db, b, payloadB))
          const heardA = yield* collect(db, webhookNotifyChannel(a))
          const heardB = yield* collect(db, webhookNotifyChannel(b))
          // Both listeners are in place once each has heard a probe on its channel.
          for (const [heard, channel] of [
            [heardA, webhookNotifyChannel(a)],
            [heardB, webhookNotifyChannel(b)]
          ] as const) {
            const probe = `probe:${randomUUID()}`
            yield* awaitHeard(heard, probe, runScript(db, `SELECT pg_notify('${channel}', '${probe}')`))
          }

          const partner = testPartner("p_shared")
          const endpoint = yield* Effect.provide(
            Effect.flatMap(Webhooks.Webhooks, (w) => w.createEndpoint(partner, { url: "https://a.example/hook" })),
            engineA
          )
          yield* Effect.provide(
            Effect.flatMap(Webhooks.Webhooks, (w) => w.sendTest(partner, endpoint.id)),
            engineA
          )
          yield* Effect.provide(openAccount("p_shared"), engineA)
          yield* awaitHeard(heardA, payloadA)
          yield* Effect.sleep("300 millis")
          expect(yield* heardB).not.toContain(payloadA)

          const [endpointsB, accountsB] = yield* Effect.provide(
            Effect.all([Effect.flatMap(Webhooks.Webhooks, (w) => w.listEndpoints(partner)), countAccounts]),
            engineB
          )
          expect(endpointsB).toEqual([])
          expect(accountsB).toEqual([])
          expect(yield* Effect.provide(countAccounts, engineA)).toEqual(["p_shared"])
          expect(yield* runScript(db, OBJECTS("public"))).toEqual([])
        }).pipe(Effect.scoped),
      60_000
    )

    it.live(
      "a user without rights on public runs Frank: with CREATE on the database, or owning a schema made for it",
      () =>
        Effect.gen(function* () {
          const creator = yield* scratchRole(url)
          const owner = yield* scratchRole(url)
          const db = yield* scratchDatabase(url)
          const dbName = new URL(db).pathname.slice(1)
          yield* runScript(
            db,
            `REVOKE ALL ON SCHEMA public FROM PUBLIC;
             GRANT CONNECT, CREATE ON DATABASE ${dbName} TO ${creator};
             CREATE SCHEMA billing AUTHORIZATION ${owner}`
          )
          const clientAs = (role: string, schema: string) =>
            PostgresDatabase.layer(Redacted.make(urlOf(db, dbName, role)), { maxConnections: 1, schema })
          const runAs = (role: string, schema: string) =>
            Effect.provide(
              Effect.gen(function* () {
                const applied = yield* Migrations.run
                yield* openAccount(`p_${role}`)
                const sql = yield* SqlClient.SqlClient
                const [rights] = yield* sql<{
                  usage: boolean
                  create: boolean
                }>`SELECT has_schema_privilege('public', 'USAGE') AS usage, has_schema_privilege('public', 'CREATE') AS create`
                return { applied: applied.length, accounts: yield* countAccounts, rights }
              }),
              clientAs(role, schema)
            )
          for (const [role, schema] of [
            [creator, "frank"],
            [owner, "billing"]
          ] as const)
            expect(yield* runAs(role, schema)).toEqual({
              applied: Migrations.count,
              accounts: [`p_${role}`],
              rights: { usage: false, create: false }
            })
          // A restart of the owner's engine: the schema exists, so no CREATE on the database is needed.
          expect(yield* Effect.provide(Migrations.run, clientAs(owner, "billing"))).toEqual([])
        }).pipe(Effect.scoped),
      60_000
    )
  })
