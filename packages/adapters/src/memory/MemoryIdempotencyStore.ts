/**
 * The idempotency store in one process's memory (embedders' tests, the simulation). Memory stores
 * have no transactions, so `transaction` only bounds the claims: a key claimed inside it is held
 * until it ends, which answers a concurrent retry "in progress" as the SQL store does. Answers are
 * saved last, after the operation, so a failed operation leaves none.
 */
import { Idempotency } from "@frank/core/http"
import { Effect, FiberRef, Layer } from "effect"

interface Row {
  readonly fingerprint: string
  readonly answer: Idempotency.StoredAnswer
  readonly at: number
}

const idOf = (scope: string, key: string) => `${scope}\n${key}`

/** A fresh, empty store. */
export const make = (): Effect.Effect<Idempotency.IdempotencyStoreShape> =>
  Effect.gen(function* () {
    const rows = new Map<string, Row>()
    const held = new Set<string>()
    // The keys the current transaction holds; undefined outside one.
    const holding = FiberRef.unsafeMake<Set<string> | undefined>(undefined)
    return {
      transaction: (effect) =>
        Effect.suspend(() => {
          const mine = new Set<string>()
          return effect.pipe(
            Effect.locally(holding, mine),
            Effect.ensuring(
              Effect.sync(() => {
                for (const id of mine) held.delete(id)
              })
            )
          )
        }),
      claim: (scope, key) =>
        Effect.flatMap(FiberRef.get(holding), (mine) =>
          Effect.sync((): Idempotency.Claim => {
            const id = idOf(scope, key)
            if (mine?.has(id) !== true) {
              if (held.has(id)) return { _tag: "InProgress" }
              if (mine !== undefined) {
                held.add(id)
                mine.add(id)
              }
            }
            const row = rows.get(id)
            return row === undefined
              ? { _tag: "Fresh" }
              : { _tag: "Stored", fingerprint: row.fingerprint, answer: row.answer }
          })
        ),
      save: (request, answer, at) =>
        Effect.sync(() => {
          rows.set(idOf(request.scope, request.key), { fingerprint: request.fingerprint, answer, at })
        }),
      deleteExpired: (before, limit) =>
        Effect.sync(() => {
          const expired = [...rows].filter(([, r]) => r.at < before).sort((a, b) => a[1].at - b[1].at)
          const gone = expired.slice(0, limit)
          for (const [id] of gone) rows.delete(id)
          return gone.length
        })
    }
  })

/** `Idempotency.IdempotencyStore` in memory. */
export const layer: Layer.Layer<Idempotency.IdempotencyStore> = Layer.effect(Idempotency.IdempotencyStore, make())
