/**
 * Delivery records as stored and listed, the work item a worker claims, and the opaque cursor of
 * the deliveries page (docs/contract.md §5: newest first, `nextCursor` opaque or null).
 */
import { Either } from "effect"
import type { DeliveryId, EndpointId, PartnerId } from "../EntityIds.js"
import type { DeliveryState, DeliveryStatus } from "./DeliveryState.js"
import type { EventType } from "../events/EventType.js"
import type { SignatureScheme } from "./signing/SignatureScheme.js"
import type { AttemptOutcome } from "./transport/WebhookTransport.js"

/** A delivery as stored: its event, endpoint, state and last answer. */
export interface DeliveryRecord extends DeliveryState {
  readonly partnerId: PartnerId
  readonly id: DeliveryId
  readonly endpointId: EndpointId
  readonly eventId: string
  readonly eventType: EventType
  readonly createdAt: number
  readonly updatedAt: number
  /** One entry per attempt in order (across replays): the HTTP status, or null when none came back. */
  readonly responseCodes: ReadonlyArray<number | null>
  /** Why the last attempt failed, when it did. */
  readonly lastError: string | null
}

/** One attempt's outcome as recorded. */
export interface AttemptRecord {
  readonly attempt: number
  readonly startedAt: number
  readonly durationMs: number
  readonly responseStatus: number | null
  readonly error: string | null
  /** The first KiB of the receiver's response body (never its headers); null or absent when none was read. */
  readonly responseSnippet?: string | null | undefined
}

/** A delivery with what its page shows: the event's payload as sent and every attempt, oldest first. */
export interface DeliveryDetail extends DeliveryRecord {
  readonly payload: string
  readonly attemptLog: ReadonlyArray<AttemptRecord>
}

/** One bucket of an endpoint's attempts: how many started in [start, start + width), succeeded, and their summed duration. */
export interface AttemptBucket {
  readonly start: number
  readonly attempts: number
  readonly succeeded: number
  readonly totalDurationMs: number
}

/** An attempt's outcome, ready to record: the state the machine decided and the attempt row. */
export interface FinishedAttempt {
  readonly claim: ClaimedDelivery
  readonly next: DeliveryState
  readonly attempt: AttemptRecord
  /** What kind of answer the attempt got (for metrics; the attempt row has the details). */
  readonly outcome: AttemptOutcome["_tag"]
}

/** A delivery claimed by a worker, with everything the attempt needs. */
export interface ClaimedDelivery {
  readonly partnerId: PartnerId
  readonly id: DeliveryId
  readonly endpointId: EndpointId
  readonly eventId: string
  readonly eventType: EventType
  readonly payload: string
  readonly url: string
  readonly secret: string
  readonly previousSecret: string | null
  readonly previousSecretValidUntil: number | null
  readonly signatureScheme: SignatureScheme
  /** W3C `traceparent` of the span that wrote the event (null when none was recorded): the attempt's span links to it. */
  readonly traceParent?: string | null | undefined
  /** The state after the claim (status `delivering`, attempt counted, lease set). */
  readonly state: DeliveryState
  /** Fences the outcome: only the claimer may record it, and only while it still holds the claim. */
  readonly claimToken: string
  /** When the fan-out wrote the delivery (epoch ms): a store that partitions history by it finds the row by it. */
  readonly createdAt: number
}

/** What a delivery log read keeps: status, endpoint, event type and a creation-time range. */
export interface DeliveryFilter {
  readonly endpointId?: EndpointId | undefined
  readonly status?: DeliveryStatus | undefined
  readonly eventType?: EventType | undefined
  /** Created at or after (epoch ms). */
  readonly createdFrom?: number | undefined
  /** Created before (epoch ms). */
  readonly createdBefore?: number | undefined
}

/** Position after the last row of a page: rows strictly older than (createdAt, id). */
export interface DeliveryCursor {
  readonly createdAt: number
  readonly id: string
}

export interface DeliveryPage {
  readonly deliveries: ReadonlyArray<DeliveryRecord>
  readonly next: DeliveryCursor | null
}

/** Spec "Limits": page size 1..100, default 20. */
export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100

/** The opaque page cursor of a delivery listing. */
export const encodeCursor = (c: DeliveryCursor): string =>
  btoa(`${c.createdAt}:${c.id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

export const decodeCursor = (raw: string): Either.Either<DeliveryCursor, string> => {
  try {
    const text = atob(raw.replace(/-/g, "+").replace(/_/g, "/"))
    // The id exactly as issued (a lowercase UUID): SQL stores cast it, so anything else would fail there.
    const m = /^(\d{1,16}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(text)
    if (m === null) return Either.left("cursor is not one this API issued")
    return Either.right({ createdAt: Number(m[1]), id: m[2] as string })
  } catch {
    return Either.left("cursor is not one this API issued")
  }
}

/** Newest first: by createdAt descending, then id descending. */
export const isBefore = (row: DeliveryCursor, cursor: DeliveryCursor): boolean =>
  row.createdAt < cursor.createdAt || (row.createdAt === cursor.createdAt && row.id < cursor.id)
