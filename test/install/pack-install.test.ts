/**
 * What an embedder gets from npm: the three packages packed as they would be published, installed
 * into a fresh project that has nothing else, then used with no TypeScript loader — a plain .mjs
 * program, a strict .ts consumer typechecked against the shipped .d.ts, and the host started by
 * the installed `frank serve`. Run by `npm run test:install` (CI); it builds first when stale.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnHost } from "../e2e/spawnHost.js"
import { buildIfStale, installTarballs, type Packed, packAll, ROOT, runAsync } from "./packInstall.js"

let packed: ReadonlyArray<Packed> = []
let tarballs = ""
let project = ""

beforeAll(async () => {
  await buildIfStale()
  tarballs = mkdtempSync(join(tmpdir(), "frank-tarballs-"))
  packed = await packAll(tarballs)
  project = await installTarballs(packed, tarballs)
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
    writeFileSync(join(project, config), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }))
    const r = await run([join(ROOT, "node_modules/typescript/bin/tsc"), "-p", config])
    const errors = r.stdout.split("\n").filter((l) => /error TS\d+/.test(l))
    const ours = errors.filter((l) => l.startsWith("consumer.ts") || l.startsWith("node_modules/@frank/"))
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
