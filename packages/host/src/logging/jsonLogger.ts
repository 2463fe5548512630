/**
 * Structured logs: one JSON object per line on stdout, with the annotations (requestId, method,
 * path, status, durationMs) as fields, at the level LOG_LEVEL sets.
 */
import { Layer, Logger, LogLevel } from "effect"

const levels = { debug: LogLevel.Debug, info: LogLevel.Info, warning: LogLevel.Warning, error: LogLevel.Error } as const

export const jsonLogging = (level: keyof typeof levels) =>
  Layer.merge(Logger.json, Logger.minimumLogLevel(levels[level]))
