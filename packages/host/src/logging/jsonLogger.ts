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
  const line: Record<string, unknown> = { ...entry.annotations }
  line.timestamp = entry.timestamp
  line.level = entry.logLevel
  line.message = Array.isArray(entry.message) ? entry.message.map(plain) : plain(entry.message)
  line.fiberId = entry.fiberId
  if (Object.keys(entry.spans).length > 0) line.spans = entry.spans
  if (entry.cause !== undefined) line.cause = entry.cause
  return stringifySafely(line)
})

/** A logger must not throw: cycles are dropped and bigints become strings (JSON.stringify throws on both). */
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
 * Replaces Effect's default (pretty) logger with JSON lines written through the Console service
 * (stdout by default; tests swap it with `Effect.withConsole`), and sets the minimum level.
 */
export const jsonLogging = (level: HostLogLevel): Layer.Layer<never> =>
  Layer.merge(Logger.replace(Logger.defaultLogger, Logger.withConsoleLog(flatJsonLogger)), Logger.minimumLogLevel(LEVELS[level]))

export const toLogLevel = (level: HostLogLevel): LogLevel.LogLevel => LEVELS[level]
