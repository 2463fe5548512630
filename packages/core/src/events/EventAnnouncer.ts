/**
 * Tells other processes that deliveries became due, after the commit that made them so.
 *
 * The outbox's `wake` (called by every service after its commit) signals this process's worker and,
 * when an announcer is provided, announces as well. Optional: a store that notifies inside the
 * business transaction (the SQL store's default NOTIFY) needs none, and a single process needs
 * neither. The reference host on Postgres announces after commit instead (a coalesced NOTIFY,
 * `@frank/adapters` PgNotifyAnnouncer), because a NOTIFY inside a transaction makes Postgres
 * commit every such transaction one at a time.
 *
 * `announce` never fails: a lost announcement only delays other instances until their next poll.
 */
import { Context, type Effect } from "effect"

/** The operations of the event announcer port. */
export interface EventAnnouncerShape {
  readonly announce: Effect.Effect<void>
}

/** Port: tells other processes that events were committed (PostgreSQL NOTIFY in adapters). */
export class EventAnnouncer extends Context.Tag("@frank/core/EventAnnouncer")<EventAnnouncer, EventAnnouncerShape>() {}
