/**
 * Readiness: the database answers and every bundled migration is applied. Checked on each call,
 * so a lost database turns `/readyz` red without a restart.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"

export class Readiness extends Context.Tag("@frank/host/Readiness")<
  Readiness,
  {
    /** undefined when ready, else the reason. */
    readonly check: Effect.Effect<string | undefined>
  }
>() {
  static readonly layer = (expectedMigrations: number) =>
    Layer.effect(
      Readiness,
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return {
          check: sql<{ n: number | string }>`SELECT count(*) AS n FROM effect_sql_migrations`.pipe(
            Effect.map((rows) => {
              const applied = Number(rows[0]?.n ?? 0)
              return applied >= expectedMigrations
                ? undefined
                : `migrations applied: ${applied} of ${expectedMigrations}`
            }),
            Effect.timeout("2 seconds"),
            Effect.catchAll(() => Effect.succeed("database unreachable"))
          )
        }
      })
    )
}
