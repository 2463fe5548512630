/**
 * Options every admin command takes, and where their values come from when omitted. Kept apart
 * from the command table so the lookup order (flag, environment, data directory, default) is one
 * tested function.
 */
import { join, resolve } from "node:path"
import { urlHost } from "../config/urlHost.js"
import { type CliOption, UsageError } from "./commands.js"

export const GLOBAL_OPTIONS: Readonly<Record<string, CliOption>> = {
  url: {
    type: "string",
    description:
      "host base URL (else FRANK_PUBLIC_BASE_URL, else http://HOST:PORT as the host listens, 127.0.0.1:8080 by default)"
  },
  token: { type: "string", description: "admin token (else FRANK_ADMIN_TOKEN, else <FRANK_DATA_DIR>/admin-token)" },
  timeout: { type: "string", description: "seconds to wait for the host (default 30)" }
}

export const DEFAULT_TIMEOUT_SECONDS = 30

export type Env = Readonly<Record<string, string | undefined>>

/** Reads a file as text, or undefined when it does not exist (injectable for tests). */
export type ReadFile = (path: string) => string | undefined

const nonEmpty = (s: string | undefined) => (s !== undefined && s.trim().length > 0 ? s.trim() : undefined)

/**
 * Where a host started from the same environment listens: the host's own default for
 * FRANK_PUBLIC_BASE_URL (http://HOST:PORT), so `PORT=9090 npm start` and `PORT=9090 frank …` in
 * one shell find each other. A wildcard listen address is reached on the loopback.
 */
const listenUrl = (env: Env): string => {
  const port = nonEmpty(env.PORT)
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    throw new UsageError(`PORT must be a port number (1 to 65535), got "${port}"`)
  const host = nonEmpty(env.HOST) ?? "127.0.0.1"
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "::1" : host
  return `http://${urlHost(reachable)}:${port ?? "8080"}`
}

export const resolveBaseUrl = (flag: string | undefined, env: Env): string => {
  const raw = nonEmpty(flag) ?? nonEmpty(env.FRANK_PUBLIC_BASE_URL) ?? listenUrl(env)
  const url = URL.canParse(raw) ? new URL(raw) : undefined
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new UsageError(`not an http(s) URL: "${raw}"`)
  return url.toString().replace(/\/+$/, "")
}

/** The admin token the same way the host finds it: the variable, else the file it generated. */
export const resolveToken = (flag: string | undefined, env: Env, readFile: ReadFile): string => {
  const given = nonEmpty(flag) ?? nonEmpty(env.FRANK_ADMIN_TOKEN)
  if (given !== undefined) return given
  const path = join(resolve(nonEmpty(env.FRANK_DATA_DIR) ?? "./.frank"), "admin-token")
  const stored = nonEmpty(readFile(path))
  if (stored !== undefined) return stored
  throw new UsageError(
    `no admin token: pass --token, set FRANK_ADMIN_TOKEN, or set FRANK_DATA_DIR to the host's data directory (looked for ${path})`
  )
}

export const resolveTimeoutMs = (flag: string | undefined): number => {
  if (flag === undefined) return DEFAULT_TIMEOUT_SECONDS * 1000
  const n = Number(flag)
  if (flag.trim().length === 0 || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`--timeout must be a positive number of seconds, got "${flag}"`)
  return Math.ceil(n * 1000)
}
