/**
 * Which host instance a webhook NOTIFY came from. The host wakes its own worker in-process after
 * every commit that makes deliveries due (the only wake-up on the embedded database), and on
 * Postgres it also LISTENs, so that events committed by other instances wake it. Without telling
 * the two apart, each of its own events would wake its worker twice: a second claim statement,
 * usually finding nothing, plus a `nextWakeAt` query per event.
 *
 * The instance's SQL store sends `payload` with each NOTIFY; the listener skips those `isOwn`.
 */
import { randomUUID } from "node:crypto"

export interface NotifyOrigin {
  /** The NOTIFY payload this instance's store sends. */
  readonly payload: string
  /** A notification this instance sent itself (its worker was already woken in-process). */
  readonly isOwn: (payload: string) => boolean
}

/** A fresh origin per process: unique, so no instance takes another's notifications for its own. */
export const makeNotifyOrigin = (): NotifyOrigin => {
  const payload = `due:${randomUUID()}`
  return { payload, isOwn: (received) => received === payload }
}
