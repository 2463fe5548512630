/**
 * The CPU time a spawned host process has used, from /proc (Linux, where the e2e suite runs):
 * user + system ticks of the process, in milliseconds. Measured around one request at a time,
 * it bounds what the request cost the host whatever the load on the machine (wall-clock timings
 * would not); the host's own background work can only add to it, so a bound that holds is real.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100
  } catch {
    return 100
  }
})()

export const processCpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // Fields after the command name (which may hold spaces) start at ") "; utime and stime are
  // fields 14 and 15 of the line, i.e. 12th and 13th after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond
}

/** The least CPU `run` cost the process over up to `attempts` tries (noise only ever adds). */
export const leastCpuMs = async (pid: number, run: () => Promise<void>, attempts: number, enough: number) => {
  let least = Number.POSITIVE_INFINITY
  for (let i = 0; i < attempts && least > enough; i++) {
    const before = processCpuMs(pid)
    await run()
    least = Math.min(least, processCpuMs(pid) - before)
  }
  return least
}
