/**
 * What an embedder gets from npm: the three packages packed as they would be published, installed
 * into a fresh project that has nothing else but its own Effect, on another patch than the
 * repository's (`APP_EFFECT`), then used with no TypeScript loader — plain .mjs programs (the
 * engine, and createFrank serving the partner API through node:http), a strict .ts consumer typechecked against the shipped .d.ts, and the host started by the
 * installed `frank serve` — with one copy of Effect in the process. Run by `npm run test:install`
 * (CI); it builds first when stale. The lean install (ledger + webhooks on PostgreSQL, without the
 * optional packages) is lean-install.test.ts.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnHost } from "../e2e/spawnHost.js"
import {
  buildIfStale,
  copiesOf,
  installTarballs,
  type Packed,
  packAll,
  ROOT,
  runAsync,
  treeBytes
} from "./packInstall.js"

/**
 * The app's own Effect: a patch other than the repository's (package.json pins 3.22.4), within
 * the peer range of the packages (^3.22.2). The packages must use this one, not bring their own.
 */
const APP_EFFECT = "3.22.3"

let packed: ReadonlyArray<Packed> = []
let tarballs = ""
let project = ""

beforeAll(async () => {
  await buildIfStale()
  tarballs = mkdtempSync(join(tmpdir(), "frank-tarballs-"))
  packed = await packAll(tarballs)
  project = await installTarballs(packed, tarballs, { alongside: [`effect@${APP_EFFECT}`] })
}, 900_000)

afterAll(() => {
  for (const dir of [tarballs, project]) if (dir !== "") rmSync(dir, { recursive: true, force: true })
})

const run = (args: ReadonlyArray<string>) => runAsync(process.execPath, args, project)

describe("npm pack", () => {
  it("ships compiled JavaScript, declarations and assets, and nothing of the repository's own", () => {
    expect(packed.map((p) => p.name)).toEqual(["@frank/core", "@frank/adapters", "@frank/host"])
    for (const p of packed) {
      const paths = p.files.map((f) => f.path)
      expect(paths).toContain("package.json")
      expect(paths).toContain("LICENSE")
      const strays = paths.filter(
        (f) =>
          !/^(dist\/.+\.(js|d\.ts|js\.map|d\.ts\.map)|bin\/frank\.mjs|catalog\/[^/]+\.json|migrations\/.+|assets\/.+|package\.json|LICENSE|README\.md)$/.test(
            f
          )
      )
      expect(strays, p.name).toEqual([])
      expect(
        paths.filter((f) =>
          /(^|\/)(test|tests|fixtures?|bench)\/|\.test\.|\.frank|tsbuildinfo|\.ts$/.test(f.replace(/\.d\.ts$/, ""))
        ),
        p.name
      ).toEqual([])
    }
  })
})

describe("beside the app's own Effect on another patch", () => {
  it("the repository pins another patch than the app's", () => {
    const pinned = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies.effect
    expect(pinned).not.toBe(APP_EFFECT)
  })

  it("installs one copy of effect, the app's, and none under @frank/*", () => {
    const modules = join(project, "node_modules")
    expect(copiesOf(modules, "effect")).toEqual([join(modules, "effect")])
    expect(JSON.parse(readFileSync(join(modules, "effect/package.json"), "utf8")).version).toBe(APP_EFFECT)
    for (const scope of ["@effect/platform", "@effect/sql", "@effect/sql-pg"])
      expect(copiesOf(modules, scope), scope).toEqual([join(modules, scope)])
    const effects = (path: string) => path === join(modules, "effect") || path === join(modules, "@effect")
    const mb = (bytes: number) => (bytes / 1e6).toFixed(1)
    console.info(
      `full install (core, adapters, host): ${mb(treeBytes(modules, effects))} MB of node_modules beyond effect ` +
        `and @effect/* (${mb(treeBytes(modules))} MB in all)`
    )
  })

  it("runs the engine and loads every entry point of core and adapters from that one copy", async () => {
    const r = await run(["one-effect.mjs"])
    expect(r.status, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as {
      modules: number
      copies: ReadonlyArray<{ root: string; version: string }>
    }
    expect(report.modules).toBeGreaterThan(50)
    expect(report.copies).toEqual([{ root: join(project, "node_modules/effect"), version: APP_EFFECT }])
  })
})

describe("the installed packages", () => {
  it("have no TypeScript loader to lean on", () => {
    expect(existsSync(join(project, "node_modules/tsx"))).toBe(false)
    expect(existsSync(join(project, "node_modules/@frank/core/src"))).toBe(false)
  })

  it("run a plain .mjs program with node: ledger, estimate, webhook retries under TestClock", async () => {
    const r = await run(["engine.mjs"])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout.match(/^ok /gm)).toHaveLength(4)
  })

  it("run the SQL ledger store on PGlite", async () => {
    const r = await run(["sql.mjs"])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain("ok   the SQL ledger store on PGlite")
  })

  it("run a plain .mjs embedder: createFrank on PGlite, frank.fetch in node:http, a balance asked with a key", async () => {
    const r = await run(["embed-http.mjs"])
    expect(r.status, r.stderr).toBe(0)
    const answer = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Record<
      "withKey" | "withoutKey",
      { status: number; body: Record<string, unknown> }
    >
    expect(answer.withKey.status).toBe(200)
    expect(answer.withKey.body).toMatchObject({ total: 123.45, used: 0, reserved: 0, available: 123.45 })
    expect(answer.withoutKey.status).toBe(401)
    expect(answer.withoutKey.body).toMatchObject({ code: "API_KEY_INVALID" })
  })

  it.each([
    ["node16", "node16"],
    ["bundler", "esnext"]
  ])("typecheck a strict .ts consumer with moduleResolution %s", async (moduleResolution, module) => {
    const config = `tsconfig.${moduleResolution}.json`
    const compilerOptions = {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: "ES2022",
      lib: ["ES2022", "DOM"],
      module,
      moduleResolution,
      types: ["node"],
      // Every declaration file is checked, so an error in ours fails; third-party ones are
      // listed below and ignored (mediainfo.js's need @types/emscripten, which it does not depend on).
      skipLibCheck: false
    }
    writeFileSync(
      join(project, config),
      JSON.stringify({ compilerOptions, files: ["consumer.ts", "embed-consumer.ts"] })
    )
    const r = await run([join(ROOT, "node_modules/typescript/bin/tsc"), "-p", config])
    const errors = r.stdout.split("\n").filter((l) => /error TS\d+/.test(l))
    const ours = errors.filter((l) => /^(embed-)?consumer\.ts/.test(l) || l.startsWith("node_modules/@frank/"))
    expect(ours).toEqual([])
    expect(errors.filter((l) => !l.startsWith("node_modules/mediainfo.js/"))).toEqual([])
  })

  it("start the host with the installed bin, `frank serve`, which answers 200 on /readyz", async () => {
    const host = await spawnHost(
      {},
      { command: { args: ["node_modules/@frank/host/bin/frank.mjs", "serve"], cwd: project } }
    )
    try {
      const ready = await fetch(`${host.baseUrl}/readyz`)
      expect(ready.status).toBe(200)
      // The process runs the installed package's compiled JavaScript.
      const cmdline = execFileSync("ps", ["-o", "args=", "-p", String(host.process.pid)], { encoding: "utf8" })
      expect(cmdline).toContain("frank.mjs serve")
      expect(host.logs()).toContain("Frank host ready")
    } finally {
      expect(await host.stop()).toBe(0)
    }
  })
})
