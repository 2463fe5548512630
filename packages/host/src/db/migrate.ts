/**
 * `frank migrate`: applies the migrations to the configured database without starting the server.
 */
import { Migrations } from "@frank/adapters"
import { Effect } from "effect"
import { hostConfig } from "../config/HostConfig.js"
import { databaseLayer } from "./database.js"

export const runMigrationsCommand = (): Promise<ReadonlyArray<readonly [id: number, name: string]>> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const config = yield* hostConfig
      return yield* Effect.provide(Migrations.run, databaseLayer(config))
    }).pipe(Effect.scoped)
  )
