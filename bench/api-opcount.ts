/**
 * Preload for profiling (bench/api-profile.ts with OP_COUNT=<file>): counts the Effect operations
 * the runtime evaluates, by op code, and the fibers it starts. SIGUSR2 writes the counters to the
 * file. A deterministic measure of per-request work, unlike time on a shared machine.
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"

const file = process.env.OP_COUNT ?? ""
const effectRoot = dirname(createRequire(import.meta.url).resolve("effect/package.json"))
const { FiberRuntime } = (await import(pathToFileURL(join(effectRoot, "dist/esm/internal/fiberRuntime.js")).href)) as {
  FiberRuntime: { prototype: Record<string, (...args: unknown[]) => unknown> }
}
const counts: Record<string, number> = { fibers: 0 }
const OPS = [
  "Async",
  "Commit",
  "Failure",
  "OnFailure",
  "OnSuccess",
  "OnSuccessAndFailure",
  "Success",
  "Sync",
  "Tag",
  "UpdateRuntimeFlags",
  "While",
  "Iterator",
  "WithRuntime",
  "Yield",
  "RevertFlags",
  "Left",
  "Right",
  "Some",
  "None"
]
/** With OP_COUNT_DETAIL set, also by the source text of the function each op runs (slow). */
const detail = process.env.OP_COUNT_DETAIL !== undefined
const names = new WeakMap<object, string>()
const nameOf = (f: unknown): string => {
  if (typeof f !== "function") return ""
  let n = names.get(f)
  if (n === undefined) {
    n = `${f.name}: ${String(f).replace(/\s+/g, " ").slice(0, 140)}`
    names.set(f, n)
  }
  return n
}
const FIELD: Record<string, string> = {
  Sync: "effect_instruction_i0",
  WithRuntime: "effect_instruction_i0",
  OnSuccess: "effect_instruction_i1",
  OnFailure: "effect_instruction_i1",
  OnSuccessAndFailure: "effect_instruction_i2",
  Async: "effect_instruction_i0"
}
const proto = FiberRuntime.prototype
for (const op of OPS) {
  const original = proto[op]
  if (typeof original !== "function") continue
  counts[op] = 0
  proto[op] = function (this: unknown, ...args: unknown[]) {
    counts[op]! += 1
    if (detail) {
      const o = args[0] as Record<string, unknown>
      const field = FIELD[op]
      const k = `${op} ${field !== undefined ? nameOf(o[field]) : op === "Commit" ? `${o.constructor?.name} ${nameOf(o.commit)}` : op === "Failure" ? String(o.effect_instruction_i0).slice(0, 200) : ""}`
      counts[k] = (counts[k] ?? 0) + 1
      if (op === "Failure" && process.env.OP_COUNT_STACK !== undefined) {
        const where = `${k} @ ${(new Error().stack ?? "").split("\n").slice(2, 30).join(" < ")}`
        counts[where] = (counts[where] ?? 0) + 1
      }
    }
    return original.apply(this, args)
  }
}
const start = proto.start!
proto.start = function (this: unknown, ...args: unknown[]) {
  counts.fibers! += 1
  return start.apply(this, args)
}
/**
 * With OP_COUNT_HEAP set, the first SIGUSR2 starts V8's sampling heap profiler (keeping samples
 * of objects the GC already collected, i.e. every allocation) and the second writes the profile
 * next to the counters (`<file>.heapprofile`).
 */
let heap: Session | undefined
process.on("SIGUSR2", () => {
  writeFileSync(file, JSON.stringify({ ...counts, atMs: performance.now() }))
  if (process.env.OP_COUNT_HEAP === undefined) return
  if (heap === undefined) {
    heap = new Session()
    heap.connect()
    heap.post("HeapProfiler.enable")
    heap.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true
    })
  } else {
    heap.post("HeapProfiler.stopSampling", (err, result) => {
      if (err === null) writeFileSync(`${file}.heapprofile`, JSON.stringify(result.profile))
    })
  }
})
