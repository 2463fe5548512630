/**
 * The shape every cabinet page module exports: its routes (relative to the mount path), each a
 * handler that runs after the session guard.
 */
import type * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import type { CabinetContext } from "./CabinetRequest.js"
import type { Strings } from "./i18n.js"

export type RouteEnv = HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext

export interface CabinetRoute {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly handler: (ctx: CabinetContext) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, RouteEnv>
}

export const get = (path: string, handler: CabinetRoute["handler"]): CabinetRoute => ({ method: "GET", path, handler })
export const post = (path: string, handler: CabinetRoute["handler"]): CabinetRoute => ({
  method: "POST",
  path,
  handler
})

/** A domain failure as words: the translated text of its code, else its own message(s). */
export const errorText = (
  t: Strings,
  e: {
    readonly code?: string
    readonly message: string
    readonly messages?: ReadonlyArray<string>
    readonly issues?: ReadonlyArray<{
      readonly code: string
      readonly days?: number | undefined
      readonly at?: string | undefined
    }>
  }
): ReadonlyArray<string> => {
  const known = e.code === undefined || e.code === "VALIDATION_FAILED" ? undefined : t.errors.codes[e.code]
  if (known !== undefined) return [known]
  // Coded issues are worded in the page's language; the English lines stay for codes not listed.
  const worded = (e.issues ?? []).map((i) => t.errors.recoveryProblems[i.code]?.(i))
  if (worded.length > 0 && worded.every((w) => w !== undefined)) return worded as ReadonlyArray<string>
  return e.messages !== undefined && e.messages.length > 0 ? e.messages : [e.message]
}

/** Store failures are defects (a 500 with a request id); domain failures stay typed. */
export const orDieOnStore = <A, E extends { readonly _tag: string }, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, { readonly _tag: "StoreError" }>, R> =>
  Effect.catchAll(effect, (e) =>
    e._tag === "StoreError" ? Effect.die(e) : Effect.fail(e as Exclude<E, { readonly _tag: "StoreError" }>)
  )

/** The `?done=` flash of a POST/redirect/GET, as the page's notice. */
export const doneNotice = (ctx: CabinetContext, texts: Record<string, string>) => {
  const done = ctx.query.get("done")
  const text = done === null ? undefined : texts[done]
  return text === undefined ? undefined : ({ kind: "ok", text } as const)
}
