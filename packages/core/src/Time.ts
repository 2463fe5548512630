/**
 * The `Time` namespace: durations in milliseconds and seconds, and the one way an instant is
 * written out (ISO 8601 in UTC).
 */
export { DAY_MS, DAY_SECONDS, HOUR_MS, MINUTE_MS } from "./timeUnits.js"
export { iso } from "./isoTime.js"
