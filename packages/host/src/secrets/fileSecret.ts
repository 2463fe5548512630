/**
 * Secrets the operator may leave unset (the admin token, the key pepper): generated on first
 * start, kept in the data directory with owner-only permissions, and reused afterwards. Changing
 * the pepper would invalidate every stored key hash, which is why it must persist.
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Option, Redacted } from "effect"

export interface LoadedSecret {
  readonly value: Redacted.Redacted<string>
  /** True when this call generated it (so the host can show the admin token once). */
  readonly created: boolean
}

export const loadOrCreateSecret = (dataDir: string, name: string, given: Option.Option<Redacted.Redacted<string>>) =>
  Effect.sync((): LoadedSecret => {
    if (Option.isSome(given)) return { value: given.value, created: false }
    const path = join(dataDir, name)
    try {
      const existing = readFileSync(path, "utf8").trim()
      if (existing.length > 0) return { value: Redacted.make(existing), created: false }
    } catch {
      // not created yet
    }
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    const value = randomBytes(32).toString("base64url")
    // Write-then-rename: a crash never leaves a half-written secret behind.
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, `${value}\n`, { mode: 0o600 })
    renameSync(tmp, path)
    return { value: Redacted.make(value), created: true }
  })
