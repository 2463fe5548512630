/**
 * Secrets the operator may leave unset (the admin token, the key pepper): generated on first
 * start, kept in the data directory with owner-only permissions, and reused afterwards. Changing
 * the pepper would invalidate every stored key hash, which is why it must persist.
 *
 * Race safety: two hosts starting on one data directory must end up with the same secret. The
 * new value is written completely to a private temporary file, then published with link(2),
 * which fails if the name already exists; the loser of the race reads the winner's value. A
 * reader therefore never sees a half-written file, and nothing is ever overwritten. (Filesystems
 * without hard links get an exclusive `wx` create instead: still one winner, not atomic content.)
 */
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Option, Redacted } from "effect"
import { generateSecret } from "./generateSecret.js"
import { SecretFileError } from "./SecretFileError.js"

export interface LoadedSecret {
  readonly value: Redacted.Redacted<string>
  /** True when this call generated it (so the host can show the admin token once). */
  readonly created: boolean
  /** Where it came from: the environment or the file in the data directory. */
  readonly source: "env" | "file"
  /** The file holding it (also when it came from the environment: where it would live). */
  readonly path: string
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

const readExisting = (path: string): string | undefined => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (e) {
    if (errno(e) === "ENOENT") return undefined
    throw new SecretFileError({ path, reason: `cannot read: ${String(e)}` })
  }
  const value = text.trim()
  // Our writes publish complete files, so an empty one was made by hand (or a disk filled up);
  // replacing it silently could change the pepper and orphan every key hash.
  if (value.length === 0)
    throw new SecretFileError({ path, reason: "is empty; delete it to generate a new secret, or set the variable" })
  return value
}

/** Hard links are missing on a few filesystems (some network and FUSE mounts): fall back to an exclusive create. */
const publish = (tmp: string, path: string, value: string) => {
  try {
    linkSync(tmp, path)
  } catch (e) {
    const code = errno(e)
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw e
    writeFileSync(path, `${value}\n`, { mode: 0o600, flag: "wx" })
  }
}

const create = (dataDir: string, path: string): { value: string; created: boolean } => {
  // 0700 applies to directories this call creates; an operator's existing directory is kept as is.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const value = generateSecret()
  const tmp = `${path}.${process.pid}.${generateSecret().slice(0, 8)}.tmp`
  try {
    writeFileSync(tmp, `${value}\n`, { mode: 0o600, flag: "wx" })
    // The mode given to open(2) is filtered by the umask; 0600 is only narrowed by it, but be
    // explicit so the result does not depend on the environment.
    chmodSync(tmp, 0o600)
    try {
      publish(tmp, path, value)
      return { value, created: true }
    } catch (e) {
      if (errno(e) !== "EEXIST") throw e
      // Another process published first: its value is the one everybody uses.
      const theirs = readExisting(path)
      if (theirs === undefined) throw e
      return { value: theirs, created: false }
    }
  } catch (e) {
    if (e instanceof SecretFileError) throw e
    throw new SecretFileError({ path, reason: `cannot create: ${String(e)}` })
  } finally {
    try {
      unlinkSync(tmp)
    } catch {
      // never written, or already gone
    }
  }
}

/**
 * The secret `name`: the given value (from the environment) when there is one, else the content
 * of `<dataDir>/<name>`, else a new 32-byte random secret written there with mode 0600.
 */
export const loadOrCreateSecret = (
  dataDir: string,
  name: string,
  given: Option.Option<Redacted.Redacted<string>> = Option.none()
): Effect.Effect<LoadedSecret, SecretFileError> => {
  const path = join(dataDir, name)
  if (Option.isSome(given)) return Effect.succeed({ value: given.value, created: false, source: "env", path })
  return Effect.try({
    try: () => {
      const existing = readExisting(path)
      const { value, created } = existing === undefined ? create(dataDir, path) : { value: existing, created: false }
      return { value: Redacted.make(value), created, source: "file" as const, path }
    },
    catch: (e) => (e instanceof SecretFileError ? e : new SecretFileError({ path, reason: String(e) }))
  }).pipe(Effect.tap((s) => (s.created ? Effect.void : warnIfReadableByOthers(path))))
}

/** A secret file others can read is worth a warning, not a refusal (the operator may have reasons). */
const warnIfReadableByOthers = (path: string) =>
  Effect.suspend(() => {
    const mode = statSync(path, { throwIfNoEntry: false })?.mode
    return mode !== undefined && (mode & 0o077) !== 0
      ? Effect.logWarning(`${path} is accessible to other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it`)
      : Effect.void
  })
