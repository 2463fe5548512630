/**
 * What `WebhookRetention` asks of storage: remove finished deliveries and events past their
 * retention, in bounded batches. Like the queue it serves every partner at once.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../../StoreError.js"

/** The retention store's methods: delete expired deliveries and events, find the oldest event kept. */
export interface WebhookRetentionStoreShape {
  /**
   * Removes up to `limit` finished deliveries (`delivered`, `dead_lettered`, `uncertain`) created
   * before `before`, oldest first, with their attempts; answers how many. Pending and delivering
   * ones stay, whatever their age: their work is not done. Rows another writer holds are skipped,
   * not waited for. A store may keep rows past `before` until their whole time partition is past
   * it, then remove the partition at once (the SQL store: whole days).
   */
  readonly deleteExpiredDeliveries: (before: number, limit: number) => Effect.Effect<number, StoreError>
  /**
   * Removes up to `limit` events that occurred before `before` and have no delivery left, oldest
   * first; answers how many. An event outlives none of its deliveries, so the delivery log never
   * shows one whose event is gone.
   */
  readonly deleteExpiredEvents: (before: number, limit: number) => Effect.Effect<number, StoreError>
  /**
   * When the oldest event still kept counts as written, for retention; undefined when there is
   * none. Its occurrence, or, for a store that removes history by whole time partitions, the last
   * instant of its partition (nothing of it goes earlier).
   */
  readonly oldestEventAt: () => Effect.Effect<number | undefined, StoreError>
  /**
   * Readies storage for the history written from `now` on; each sweep calls it first. A store
   * keeping history in time partitions creates the next ones here, ahead of their first row.
   */
  readonly prepare: (now: number) => Effect.Effect<void, StoreError>
}

/** The retention port of the webhook store (see the module comment). */
export class WebhookRetentionStore extends Context.Tag("@frank/core/WebhookRetentionStore")<
  WebhookRetentionStore,
  WebhookRetentionStoreShape
>() {}
