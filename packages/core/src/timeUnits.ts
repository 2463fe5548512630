/**
 * Units of time, defined once. The engine keeps instants and spans in epoch milliseconds (as
 * Effect's Clock gives them); the API states some spans in seconds.
 */
export const SECOND_MS = 1_000
export const MINUTE_MS = 60 * SECOND_MS
export const HOUR_MS = 60 * MINUTE_MS
export const DAY_MS = 24 * HOUR_MS
export const DAY_SECONDS = 86_400
