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
   * not waited for.
   */
  readonly deleteExpiredDeliveries: (before: number, limit: number) => Effect.Effect<number, StoreError>
  /**
   * Removes up to `limit` events that occurred before `before` and have no delivery left, oldest
   * first; answers how many. An event outlives none of its deliveries, so the delivery log never
   * shows one whose event is gone.
   */
  readonly deleteExpiredEvents: (before: number, limit: number) => Effect.Effect<number, StoreError>
  /** When the oldest event still kept occurred; undefined when there is none. */
  readonly oldestEventAt: () => Effect.Effect<number | undefined, StoreError>
}

/** The retention port of the webhook store (see the module comment). */
export class WebhookRetentionStore extends Context.Tag("@frank/core/WebhookRetentionStore")<
  WebhookRetentionStore,
  WebhookRetentionStoreShape
>() {}
