/**
 * The opaque keyset cursor of an audit page: the time and id of the last record shown. Pages are
 * newest first, so the next page holds the records strictly before it in (at, id) order; a record
 * appended meanwhile never shifts a page the way an offset would.
 */
import { Either } from "effect"

/** The position after which a page continues. */
export interface AuditCursor {
  readonly at: number
  readonly id: string
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
const CURSOR = new RegExp(`^a1:(\\d{1,16}):(${UUID})$`)

/** The cursor as the API hands it out (base64url, no padding). */
export const encodeAuditCursor = (c: AuditCursor): string =>
  btoa(`a1:${c.at}:${c.id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

/** The cursor a client sent back, or why it is not one this API issued. */
export const decodeAuditCursor = (raw: string): Either.Either<AuditCursor, string> => {
  try {
    const m = CURSOR.exec(atob(raw.replace(/-/g, "+").replace(/_/g, "/")))
    if (m === null) return Either.left("cursor is not one this API issued")
    return Either.right({ at: Number(m[1]), id: m[2] as string })
  } catch {
    return Either.left("cursor is not one this API issued")
  }
}

/** True when `row` comes after `cursor` in the newest-first order (memory stores filter with it). */
export const isAfterCursor = (row: AuditCursor, cursor: AuditCursor): boolean =>
  row.at < cursor.at || (row.at === cursor.at && row.id < cursor.id)
