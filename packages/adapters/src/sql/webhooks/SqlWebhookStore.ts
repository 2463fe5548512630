/**
 * The webhook store on SQL (PostgreSQL and PGlite): the four webhook store ports and the outbox's
 * `EventStore` over one client, provided by one layer. Used as a namespace:
 * `SqlWebhookStore.layer`, `SqlWebhookStore.layerWith({ notify: "none" })`, `SqlWebhookStore.make()`.
 *
 * - Workers claim with `FOR UPDATE SKIP LOCKED` and a lease, in one statement per batch, and
 *   record an outcome only while their claim token still holds the row (fencing): claimSql.ts.
 * - The claim statement encodes the `Claim` transition of the pure state machine; outcomes and
 *   replays are decided by the state machine in TypeScript and written as they are decided.
 * - A delivery made pending and its endpoint's deletion are kept apart by row locks: pendingGuard.ts.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { endpointWrites } from "./endpointWrites.js"
import { pendingGuardSql } from "./pendingGuard.js"
import { sqlDeliveryLog } from "./sqlDeliveryLog.js"
import { sqlDeliveryQueue } from "./sqlDeliveryQueue.js"
import { sqlEndpointStore } from "./sqlEndpointStore.js"
import { sqlEventStore } from "./sqlEventStore.js"
import { sqlRetentionStore } from "./sqlRetentionStore.js"
import { makeWebhookSql, type Options } from "./webhookSql.js"
import { type EventStore, type WebhookStores, webhookStoresContext, type WebhookStoresShape } from "@frank/core/stores"

export type { Options } from "./webhookSql.js"

/** Every port over the client in context; dies on an invalid NOTIFY payload (a wiring bug). */
export const make = (options: Options = {}): Effect.Effect<WebhookStoresShape, never, SqlClient.SqlClient> =>
  Effect.map(makeWebhookSql(options), (ctx) => {
    const endpoints = endpointWrites(ctx.sql)
    const guard = pendingGuardSql(ctx.sql)
    return {
      endpoints: sqlEndpointStore(ctx, endpoints, guard),
      queue: sqlDeliveryQueue(ctx, endpoints, guard),
      log: sqlDeliveryLog(ctx, guard),
      retention: sqlRetentionStore(ctx),
      events: sqlEventStore(ctx)
    }
  })

/** Provides the four webhook store ports and the outbox's event store, built with `options`. */
export const layerWith = (options: Options): Layer.Layer<WebhookStores | EventStore, never, SqlClient.SqlClient> =>
  Layer.effectContext(Effect.map(make(options), webhookStoresContext))

/** Provides the four webhook store ports and the outbox's event store, NOTIFY sent in the writing transaction. */
export const layer: Layer.Layer<WebhookStores | EventStore, never, SqlClient.SqlClient> = layerWith({})
