/**
 * Where a multi-process benchmark stops: CPU of one database's PostgreSQL backends and of given
 * processes (Linux /proc), the machine's busy share, and what that database's active backends
 * wait on (pg_stat_activity, sampled every few milliseconds while a phase runs).
 */
import { readFileSync } from "node:fs"
import pg from "pg"
import { cpuSeconds } from "./hostProcess.js"

/** Mean number of this database's backends in each state per sample. */
export interface WaitProfile {
  /** Active, waiting on nothing: running on a CPU (or waiting for one). */
  readonly cpu: number
  readonly lock: number
  readonly lwlock: number
  readonly io: number
  /** Active and waiting on anything else (IPC, Client, Timeout, …). */
  readonly other: number
  /** Inside a transaction, waiting for the host's next statement: time spent in the host. */
  readonly idleInTransaction: number
}

/** What one phase used: PostgreSQL and each process in CPU cores (CPU seconds per second), the machine's busy share. */
export interface PhaseUsage {
  readonly seconds: number
  readonly pgCores: number
  readonly processCores: ReadonlyArray<number>
  readonly machineBusy: number
  readonly waits: WaitProfile
}

/** Busy and total clock ticks of all cores (/proc/stat); steal and iowait count as not busy. */
const machineTicks = (): { busy: number; total: number } => {
  try {
    const ticks = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1, 9).map(Number)
    const total = ticks.reduce((a, b) => a + b, 0)
    return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0) - (ticks[7] ?? 0), total }
  } catch {
    return { busy: Number.NaN, total: Number.NaN }
  }
}

/** The machine's cores as /proc/stat counts them (NaN off Linux). */
export const machineCores = (): number => {
  try {
    return readFileSync("/proc/stat", "utf8")
      .split("\n")
      .filter((l) => /^cpu\d/.test(l)).length
  } catch {
    return Number.NaN
  }
}

const emptyCounts = () => ({ cpu: 0, lock: 0, lwlock: 0, io: 0, other: 0, idleInTransaction: 0 })

/**
 * A sampler on its own connection (which it leaves out of every count). With `applicationPrefix`
 * it counts only backends whose application_name starts with it: one host's among other
 * processes sharing the database.
 */
export const pgSampler = async (connectionString: string, database: string, applicationPrefix?: string) => {
  const client = new pg.Client({ connectionString, application_name: "frank-bench-sampler" })
  await client.connect()
  const ours = "datname = $1 AND pid <> pg_backend_pid() AND ($2::text IS NULL OR starts_with(application_name, $2))"
  const backends = async () =>
    (
      await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE ${ours}`, [
        database,
        applicationPrefix ?? null
      ])
    ).rows.map((r) => r.pid)
  const sampleWaits = async (counts: ReturnType<typeof emptyCounts>) => {
    const rows = (
      await client.query<{ state: string | null; wait_event_type: string | null }>(
        `SELECT state, wait_event_type FROM pg_stat_activity WHERE ${ours} AND backend_type = 'client backend'`,
        [database, applicationPrefix ?? null]
      )
    ).rows
    for (const r of rows) {
      if (r.state === "idle in transaction") counts.idleInTransaction++
      else if (r.state !== "active") continue
      else if (r.wait_event_type === null) counts.cpu++
      else if (r.wait_event_type === "Lock") counts.lock++
      else if (r.wait_event_type === "LWLock") counts.lwlock++
      else if (r.wait_event_type === "IO") counts.io++
      else counts.other++
    }
  }
  /** Runs `phase` while sampling every `everyMs`; answers its result and what it used. */
  const during = async <A>(
    pids: ReadonlyArray<number | undefined>,
    phase: () => Promise<A>,
    everyMs = 50
  ): Promise<{ result: A; usage: PhaseUsage }> => {
    const pgPids0 = await backends()
    const pg0 = new Map(pgPids0.map((p) => [p, cpuSeconds(p)]))
    const proc0 = pids.map(cpuSeconds)
    const machine0 = machineTicks()
    const t0 = performance.now()
    const counts = emptyCounts()
    let samples = 0
    let running = true
    const loop = (async () => {
      while (running) {
        await sampleWaits(counts)
        samples++
        await new Promise((r) => setTimeout(r, everyMs))
      }
    })()
    const result = await phase().finally(() => {
      running = false
    })
    const seconds = (performance.now() - t0) / 1000
    const machine = machineTicks()
    const proc = pids.map(cpuSeconds)
    // A backend born during the phase counts from 0; one gone before its end is lost (pools keep theirs).
    let pgSeconds = 0
    for (const p of new Set([...pgPids0, ...(await backends())])) {
      const now = cpuSeconds(p)
      if (Number.isFinite(now)) pgSeconds += now - (pg0.get(p) ?? 0)
    }
    await loop
    const per = (n: number) => n / Math.max(1, samples)
    return {
      result,
      usage: {
        seconds,
        pgCores: pgSeconds / seconds,
        processCores: proc.map((c, i) => (c - (proc0[i] ?? Number.NaN)) / seconds),
        machineBusy: (machine.busy - machine0.busy) / (machine.total - machine0.total),
        waits: {
          cpu: per(counts.cpu),
          lock: per(counts.lock),
          lwlock: per(counts.lwlock),
          io: per(counts.io),
          other: per(counts.other),
          idleInTransaction: per(counts.idleInTransaction)
        }
      }
    }
  }
  return { during, end: () => client.end() }
}
