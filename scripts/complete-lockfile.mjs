#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages npm left out.
//
// Why: the registry mirror our machines use lacks some other-platform binaries (for example
// @biomejs/cli-darwin-arm64@2.6.8). `npm install` then silently drops them from the lock, and
// `npm ci` refuses the lock as "out of sync" (npm/cli#4828, #8320). A complete lock lists every
// optional platform package with its os/cpu/libc, so `npm ci` skips the ones that do not match the
// machine without fetching them. Run after changing dependencies:  node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from "node:fs"

const OS = ["android", "darwin", "linux", "win32", "freebsd", "openbsd", "openharmony"]
const CPU = {
  arm64: "arm64",
  x64: "x64",
  arm: "arm",
  ia32: "ia32",
  loong64: "loong64",
  ppc64: "ppc64",
  riscv64: "riscv64",
  s390x: "s390x"
}

/** os / cpu / libc of a platform package, read from its name (`cli-linux-x64-musl`, `rollup-linux-arm-gnueabihf`). */
const platformOf = (name) => {
  const parts = name.split("/").pop().split("-")
  const os = parts.find((p) => OS.includes(p))
  const cpu = parts.map((p) => CPU[p]).find(Boolean)
  if (os === undefined || cpu === undefined) return undefined
  const libc = os === "linux" ? (name.includes("musl") ? "musl" : "glibc") : undefined
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) }
}

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
let added = 0
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = key === "" ? "" : `${key}/`
    const candidates = [`${base}node_modules/${dep}`, `node_modules/${dep}`]
    if (candidates.some((c) => lock.packages[c] !== undefined)) continue
    const platform = platformOf(dep)
    if (platform === undefined) throw new Error(`cannot tell the platform of ${dep}; add it by hand`)
    lock.packages[`node_modules/${dep}`] = { version, ...platform, ...(entry.dev ? { dev: true } : {}), optional: true }
    added++
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b)))
)
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`complete-lockfile: added ${added} platform entries`)
