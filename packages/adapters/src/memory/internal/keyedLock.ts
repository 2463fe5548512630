/**
 * A mutex per key: effects under the same key run one at a time, effects under different keys
 * do not wait for each other. A key's semaphore exists only while someone holds or waits for
 * it, so the map does not grow with every key ever seen.
 */
import { Effect } from "effect"

interface Entry {
  readonly semaphore: Effect.Semaphore
  users: number
}

export interface KeyedLock {
  readonly withLock: (key: string) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const makeKeyedLock = (): KeyedLock => {
  const entries = new Map<string, Entry>()
  // Effect.sync blocks run without interleaving, so the map and counters need no further guard.
  const enter = (key: string) =>
    Effect.sync(() => {
      let entry = entries.get(key)
      if (entry === undefined) {
        entry = { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
        entries.set(key, entry)
      }
      entry.users++
      return entry
    })
  const leave = (key: string, entry: Entry) =>
    Effect.sync(() => {
      if (--entry.users === 0) entries.delete(key)
    })
  return {
    withLock: (key) => (self) =>
      // acquireUseRelease: the user count is given back even when the waiter is interrupted.
      Effect.acquireUseRelease(
        enter(key),
        (entry) => entry.semaphore.withPermits(1)(self),
        (entry) => leave(key, entry)
      )
  }
}
