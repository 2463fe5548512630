/**
 * Structured logs: one JSON object per line on stdout, at the level LOG_LEVEL sets.
 *
 * Effect's own `Logger.json` nests annotations under `"annotations"`; here they are top-level
 * fields (`{"timestamp":…,"level":"INFO","message":"request","requestId":…,"status":200,…}`)
 * so log shippers and `jq 'select(.requestId == "…")'` find them without knowing Effect. The
 * fixed fields are written last and win over an annotation of the same name.
 */
import { Layer, Logger, LogLevel } from "effect"
import type { HostLogLevel } from "../config/HostConfig.js"

const LEVELS: Readonly<Record<HostLogLevel, LogLevel.LogLevel>> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error
}

/** Errors have no enumerable fields: JSON.stringify would print `{}`. */
const plain = (u: unknown): unknown => (u instanceof Error ? { name: u.name, message: u.message } : u)

/** The structured entry flattened into one JSON line. */
export const flatJsonLogger: Logger.Logger<unknown, string> = Logger.map(Logger.structuredLogger, (entry) => {
  const fixed = {
    timestamp: entry.timestamp,
    level: entry.logLevel,
    message: Array.isArray(entry.message) ? entry.message.map(plain) : plain(entry.message)
  }
  // Fixed fields first for people reading the stream, and again last so they win over annotations.
  const line: Record<string, unknown> = Object.assign({ ...fixed }, entry.annotations, fixed)
  line.fiberId = entry.fiberId
  if (Object.keys(entry.spans).length > 0) line.spans = entry.spans
  if (entry.cause !== undefined) line.cause = entry.cause
  return stringifySafely(line)
})

/**
 * A logger must not throw, and JSON.stringify throws on cycles and bigints: bigints become
 * strings and an object met a second time is written as "[Circular]" (cheap, and a repeated
 * reference in a log annotation is rare enough not to track ancestors exactly).
 */
const stringifySafely = (value: unknown): string => {
  const seen = new WeakSet<object>()
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return v.toString()
    if (typeof v === "object" && v !== null) {
      if (seen.has(v)) return "[Circular]"
      seen.add(v)
    }
    return v
  })
}

/**
 * Replaces Effect's default (pretty) logger with JSON lines written by console.log through
 * Effect's Console service (stdout), and sets the minimum level from LOG_LEVEL's value.
 */
export const jsonLogging = (level: HostLogLevel): Layer.Layer<never> =>
  Layer.merge(
    Logger.replace(Logger.defaultLogger, Logger.withConsoleLog(flatJsonLogger)),
    Logger.minimumLogLevel(LEVELS[level])
  )

export const toLogLevel = (level: HostLogLevel): LogLevel.LogLevel => LEVELS[level]
