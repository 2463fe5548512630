/**
 * The idempotency key of the request being served, for whatever records the request's changes
 * (the audit log): provided by the HTTP layer to the handlers of every change that carries a
 * valid `Idempotency-Key`, absent otherwise. Read it with `Effect.serviceOption`.
 */
import { Context } from "effect"

/** The current request's `Idempotency-Key` and whose key it is (`partner:<id>` or `admin:…`). */
export class CurrentIdempotencyKey extends Context.Tag("@frank/core/CurrentIdempotencyKey")<
  CurrentIdempotencyKey,
  {
    readonly key: string
    /** Set once authentication has named the key's owner; `undefined` before. */
    readonly scope: () => string | undefined
  }
>() {}
