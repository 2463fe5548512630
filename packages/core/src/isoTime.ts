/**
 * Instants as the API writes them: the engine keeps epoch milliseconds (Effect's Clock), and every
 * timestamp leaving it is an ISO 8601 string in UTC. One helper, so every field is written alike.
 */

/** `ms` (epoch milliseconds) as an ISO 8601 UTC timestamp, e.g. "2026-01-31T12:00:00.000Z". */
export const iso = (ms: number): string => new Date(ms).toISOString()

/** `iso` of an optional instant: null stays null. */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms))
