/**
 * Units of time, defined once. The engine keeps instants and spans in epoch milliseconds (as
 * Effect's Clock gives them); the API states some spans in seconds.
 */
export const SECOND_MS = 1_000
/** One minute in milliseconds. */
export const MINUTE_MS = 60 * SECOND_MS
/** One hour in milliseconds. */
export const HOUR_MS = 60 * MINUTE_MS
/** One day in milliseconds. */
export const DAY_MS = 24 * HOUR_MS
/** One day in seconds. */
export const DAY_SECONDS = 86_400
