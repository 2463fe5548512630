/**
 * The step every partner-scoped method starts with: decode the caller's partner id, get the
 * service, call it. One helper so each API module lists only what it calls.
 */
import type { Ids } from "@frank/core"
import { type Context, Effect } from "effect"
import type { EngineServices } from "../engine.js"
import { ids } from "./ids.js"
import type { Run } from "./run.js"

/** Runs `f` with the decoded partner id and the service behind `tag`. */
export const withPartner =
  <I extends EngineServices, S>(run: Run, tag: Context.Tag<I, S>) =>
  <A, E>(partnerId: string, f: (service: S, id: Ids.PartnerId) => Effect.Effect<A, E, EngineServices>): Promise<A> =>
    run(Effect.flatMap(ids.partner(partnerId), (id) => Effect.flatMap(tag, (service) => f(service, id))))

/** Runs `f` with the service behind `tag` (methods that take no partner id). */
export const withService =
  <I extends EngineServices, S>(run: Run, tag: Context.Tag<I, S>) =>
  <A, E>(f: (service: S) => Effect.Effect<A, E, EngineServices>): Promise<A> =>
    run(Effect.flatMap(tag, f))
