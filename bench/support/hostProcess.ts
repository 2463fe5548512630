/**
 * Running a server process for a benchmark: start it from the TypeScript sources, wait until it
 * answers, and read how much CPU it has used.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { openSync, readFileSync } from "node:fs"
import { resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "../..")

/**
 * The node flags `npm start` gives the host (package.json): none since issue 36 (the 64 MiB young
 * generation cost ~70 MiB idle; docs/decisions.md). Benches start hosts with these unless
 * HOST_NODE_FLAGS says otherwise, so they measure what operators run.
 */
export const START_FLAGS = ""

/** Node flags from an environment variable (space-separated), else `fallback`. */
export const nodeFlags = (v: string | undefined, fallback: string): ReadonlyArray<string> =>
  (v ?? fallback).split(" ").filter(Boolean)

/**
 * A Node process running TypeScript sources (`args[0]` is the entry file, relative to `cwd`: this
 * checkout unless another tree's host is wanted), stderr passed through; stdout (the host's JSON
 * log) appended to BENCH_SERVER_LOG when set, else dropped.
 */
export const startSource = (
  flags: ReadonlyArray<string>,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  cwd: string = ROOT
): ChildProcess =>
  spawn(process.execPath, [...flags, "--conditions=@frank/source", "--import", "tsx", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, "a") : "ignore", "inherit"]
  })

/** Polls `check` every 200 ms for up to a minute; throws when it never passes. */
export const waitFor = async (check: () => Promise<boolean>, what: string): Promise<void> => {
  const deadline = performance.now() + 60_000
  while (performance.now() < deadline) {
    try {
      if (await check()) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${what} did not start`)
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
export const cpuSeconds = (pid: number | undefined): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}
