/**
 * Generated secrets (admin token, key pepper): created once with owner-only permissions, read
 * back afterwards, the environment's value first, and one winner when hosts start together.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { adminTokenBanner } from "../src/secrets/adminTokenNotice.js"
import { loadOrCreateSecret } from "../src/secrets/fileSecret.js"

const dirs: Array<string> = []
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "frank-secrets-"))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe("loadOrCreateSecret", () => {
  it.effect("creates the secret once (dir 0700, file 0600) and reads the same value afterwards", () =>
    Effect.gen(function* () {
      const dataDir = join(tempDir(), "nested", "data")
      const first = yield* loadOrCreateSecret(dataDir, "admin-token")
      expect(first.created).toBe(true)
      expect(first.source).toBe("file")
      expect(Redacted.value(first.value)).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(statSync(dataDir).mode & 0o777).toBe(0o700)
      expect(statSync(join(dataDir, "admin-token")).mode & 0o777).toBe(0o600)
      expect(readFileSync(join(dataDir, "admin-token"), "utf8").trim()).toBe(Redacted.value(first.value))

      const second = yield* loadOrCreateSecret(dataDir, "admin-token")
      expect(second.created).toBe(false)
      expect(Redacted.value(second.value)).toBe(Redacted.value(first.value))

      const other = yield* loadOrCreateSecret(dataDir, "key-pepper")
      expect(Redacted.value(other.value)).not.toBe(Redacted.value(first.value))
    })
  )

  it.effect("the environment's value wins and nothing is written", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      writeFileSync(join(dataDir, "key-pepper"), "from-file\n")
      const s = yield* loadOrCreateSecret(dataDir, "key-pepper", Option.some(Redacted.make("from-env")))
      expect([Redacted.value(s.value), s.created, s.source]).toEqual(["from-env", false, "env"])
      const fresh = join(dataDir, "sub")
      yield* loadOrCreateSecret(fresh, "admin-token", Option.some(Redacted.make("x")))
      expect(statSync(fresh, { throwIfNoEntry: false })).toBeUndefined()
    })
  )

  it.effect("an operator-written file is used as is (trimmed); an empty one is refused, not replaced", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      writeFileSync(join(dataDir, "admin-token"), "  handmade-token \n", { mode: 0o600 })
      expect(Redacted.value((yield* loadOrCreateSecret(dataDir, "admin-token")).value)).toBe("handmade-token")
      writeFileSync(join(dataDir, "key-pepper"), "")
      const error = yield* Effect.flip(loadOrCreateSecret(dataDir, "key-pepper"))
      expect(error._tag).toBe("SecretFileError")
      expect(error.message).toContain("is empty")
      expect(readFileSync(join(dataDir, "key-pepper"), "utf8")).toBe("")
    })
  )

  it("hosts starting together on one data directory agree on one secret", async () => {
    const dataDir = tempDir()
    const module = resolve(import.meta.dirname, "../src/secrets/fileSecret.ts")
    // Each child loads everything first, says "ready", and waits for "go" on stdin, so the calls
    // themselves start together and the exclusive publish is what decides.
    const script = `
      const { Effect, Redacted } = await import("effect")
      const { loadOrCreateSecret } = await import(${JSON.stringify(module)})
      console.log("ready")
      process.stdin.once("data", async () => {
        const s = await Effect.runPromise(loadOrCreateSecret(${JSON.stringify(dataDir)}, "key-pepper"))
        console.log(JSON.stringify({ value: Redacted.value(s.value), created: s.created }))
        process.exit(0)
      })`
    const children = Array.from({ length: 4 }, () => {
      const child = spawn(
        process.execPath,
        ["--conditions=@frank/source", "--import", "tsx", "--input-type=module", "-e", script],
        {
          stdio: ["pipe", "pipe", "inherit"]
        }
      )
      let out = ""
      const ready = new Promise<void>((done) =>
        child.stdout.on("data", (d) => {
          out += d
          if (out.startsWith("ready\n")) done()
        })
      )
      const result = new Promise<{ value: string; created: boolean }>((done, fail) =>
        child.on("exit", (code) =>
          code === 0 ? done(JSON.parse(out.slice("ready\n".length))) : fail(new Error(`exit ${code}`))
        )
      )
      return { child, ready, result }
    })
    await Promise.all(children.map((c) => c.ready))
    for (const c of children) c.child.stdin.write("go\n")
    const results = await Promise.all(children.map((c) => c.result))
    expect(new Set(results.map((r) => r.value)).size).toBe(1)
    expect(results.filter((r) => r.created).length).toBe(1)
    expect(readFileSync(join(dataDir, "key-pepper"), "utf8").trim()).toBe(results[0]!.value)
  })

  it.effect("the first-start banner shows the token and where it is stored", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const s = yield* loadOrCreateSecret(dataDir, "admin-token")
      const banner = adminTokenBanner(s)
      expect(banner).toContain("FRANK ADMIN TOKEN")
      expect(banner).toContain(Redacted.value(s.value))
      expect(banner).toContain(join(dataDir, "admin-token"))
    })
  )
})
