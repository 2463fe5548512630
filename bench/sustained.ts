/**
 * bench/sustained (issue 36 item 6): how many events per second a reference host takes in and
 * delivers at once, held for STEP_SECONDS with commit → delivery p99 ≤ 1 s, beside its drain-only
 * rate in the same run. For each checkout in TREES it spawns that tree's host on PostgreSQL (a
 * fresh schema each), makes partners, keys and endpoints through the admin and partner APIs, and
 * emits events over HTTP through the engine's write paths — `webhook.test` (POST
 * …/endpoints/{id}/test) and top-ups (payment link, confirmed by the sandbox acquirer: a ledger
 * movement writing billing.topup.confirmed with it) — at rising rates while the host's own worker
 * delivers to a receiver in this process. The trees take turns step by step (rotating order).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:sustained
 *   TREES=/work/base,/work/main …   # the first tree is the baseline of the last ratio
 *
 * RATES (50,100,200,400,800,1600,3200 events/s), STEP_SECONDS (30), PARTNERS (4), MIX (test,topup:
 * emits take the kinds in turn), DRAIN_EVENTS (5000), MAX_IN_FLIGHT (256 emitting requests),
 * GRACE_SECONDS (10: the wait for a step's last deliveries), WARMUP_SECONDS (5, at the first rate,
 * not reported), HOST_NODE_FLAGS (none: what `npm start` gives, START_FLAGS). docs/performance.md says how to read it.
 */
import { loadavg } from "node:os"
import pg from "pg"
import { nodeFlags, ROOT, START_FLAGS } from "./support/hostProcess.js"
import { databaseUrlOrExit } from "./support/local.js"
import { type PhaseUsage, pgSampler } from "./support/pgSampler.js"
import { type DrainResult, drainOnly } from "./sustained/drain.js"
import { type BenchHost, type EmitKind, startHost } from "./sustained/host.js"
import { startReceiver } from "./sustained/receiver.js"
import { highestHeld, notHeldBecause, parseRates } from "./sustained/rules.js"
import { type StatementSampler, type StatementTimes, statementSampler } from "./sustained/statements.js"
import { runStep, type StepResult, type StepSettings } from "./sustained/step.js"

const url = databaseUrlOrExit("bench/sustained")
const TREES = (process.env.TREES ?? ROOT).split(",").filter(Boolean)
const RATES = parseRates(process.env.RATES ?? "50,100,200,400,800,1600,3200")
const KINDS = (process.env.MIX ?? "test,topup").split(",") as Array<EmitKind>
if (KINDS.some((k) => k !== "test" && k !== "topup"))
  throw new Error(`MIX takes test and topup, got ${process.env.MIX}`)
const settings: StepSettings = {
  seconds: Number(process.env.STEP_SECONDS ?? 30),
  kinds: KINDS,
  maxInFlight: Number(process.env.MAX_IN_FLIGHT ?? 256),
  graceMs: Number(process.env.GRACE_SECONDS ?? 10) * 1000
}
const PARTNERS = Number(process.env.PARTNERS ?? 4)
const DRAIN_EVENTS = Number(process.env.DRAIN_EVENTS ?? 5000)
const WARMUP_SECONDS = Number(process.env.WARMUP_SECONDS ?? 5)
const HOST_FLAGS = nodeFlags(process.env.HOST_NODE_FLAGS, START_FLAGS)

interface Side {
  readonly host: BenchHost
  readonly during: <A>(phase: () => Promise<A>) => Promise<{ result: A; usage: PhaseUsage }>
  readonly endSampler: () => Promise<void>
  readonly steps: Array<StepResult>
  /** PostgreSQL's time by part of the path for each measured phase, in order (undefined without pg_stat_statements). */
  readonly times: Array<StatementTimes | undefined>
  readonly stepTimes: Map<number, StatementTimes | undefined>
  drainTimes?: { readonly write: StatementTimes | undefined; readonly deliver: StatementTimes | undefined }
  climbing: boolean
  drain?: DrainResult
}

const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "–")
const ratio = (a: number, b: number) => (a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : "–")

const printStep = (side: Side, r: StepResult) => {
  const why = notHeldBecause(r)
  console.log(
    `  ${side.host.tree} @ ${r.target}/s: emitted ${f0(r.achieved)}/s, delivered ${f0(r.deliveredRate)}/s, p50/p99 ${f0(r.p50Ms)}/${f0(r.p99Ms)} ms, backlog at end ${r.backlogAtEnd}, CPU µs/event host ${f0(r.hostUs)} + pg ${f0(r.pgUs)} — ${why.length === 0 ? "held" : `not held: ${why.join("; ")}`}`
  )
}

/** PostgreSQL µs per event by part of the path: the drain's write and delivery sides and the highest held step. */
const reportStatements = (sides: ReadonlyArray<Side>) => {
  console.log(
    "\nPostgreSQL execution µs per event by statement (pg_stat_statements; write side per emitted event, the rest per delivered event):\n"
  )
  console.log("| tree | part | write side | delivery side | highest held step |")
  console.log("| --- | --- | ---: | ---: | ---: |")
  for (const s of sides) {
    const held = highestHeld(s.steps)
    const step = s.steps.find((r) => r.target === held)
    const columns: Array<[StatementTimes | undefined, number]> = [
      [s.drainTimes?.write, s.drain?.emitted ?? 0],
      [s.drainTimes?.deliver, s.drain?.delivered ?? 0],
      [s.stepTimes.get(held), step?.delivered ?? 0]
    ]
    const parts = new Set(columns.flatMap(([t]) => [...(t?.keys() ?? [])]))
    const total = (part: string) => columns.reduce((sum, [t]) => sum + (t?.get(part) ?? 0), 0)
    for (const part of [...parts].sort((a, b) => total(b) - total(a))) {
      const cell = ([t, n]: [StatementTimes | undefined, number]) =>
        t === undefined || n === 0 ? "–" : f0(((t.get(part) ?? 0) * 1000) / n)
      console.log(`| ${s.host.tree} | ${part} | ${columns.map(cell).join(" | ")} |`)
    }
  }
}

const report = (sides: ReadonlyArray<Side>, preloaded: string) => {
  console.log(
    `\nbench/sustained — steps of ${settings.seconds} s, MIX ${KINDS.join(",")}, ${PARTNERS} partners; held: emitted ≥ 95 % of the target, all delivered, p99 ≤ 1 s, backlog at the end ≤ 1 s of the target\n`
  )
  console.log(
    "| tree | target /s | emitted /s | delivered /s | p50 ms | p99 ms | backlog at end | host µs/event | PostgreSQL µs/event | held |"
  )
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
  for (const s of sides)
    for (const r of s.steps)
      console.log(
        `| ${s.host.tree} | ${r.target} | ${f0(r.achieved)} | ${f0(r.deliveredRate)} | ${f0(r.p50Ms)} | ${f0(r.p99Ms)} | ${r.backlogAtEnd} | ${f0(r.hostUs)} | ${f0(r.pgUs)} | ${notHeldBecause(r).length === 0 ? "yes" : "no"} |`
      )
  const first = highestHeld(sides[0]!.steps)
  console.log(
    `\n| tree | highest rate held /s | drain-only /s (${DRAIN_EVENTS} emitted) | sustained ÷ drain-only (target ≥ 0.5) | sustained ÷ ${sides[0]!.host.tree} |`
  )
  console.log("| --- | ---: | ---: | ---: | ---: |")
  for (const s of sides) {
    const held = highestHeld(s.steps)
    console.log(
      `| ${s.host.tree} | ${held}${s.climbing ? " (every rate of RATES held: raise them)" : ""} | ${f0(s.drain?.rate ?? Number.NaN)} | ${ratio(held, s.drain?.rate ?? 0)} | ${ratio(held, first)} |`
    )
  }
  console.log(
    `\nCPU µs per event by side of the path (shared_preload_libraries: "${preloaded}"; ${preloaded.includes("pg_stat_statements") ? "pg_stat_statements is loaded: the split by statement follows" : "pg_stat_statements is not loaded and the bench does not restart PostgreSQL, so PostgreSQL is not split by statement"}):`
  )
  console.log(
    "write side = the drain phase's emit (HTTP request, ledger movement, event insert, fan-out, NOTIFY, a trickle of held attempts); delivery side = the drain (claim, attempt, outcome)\n"
  )
  console.log("| tree | write side: host + PostgreSQL | delivery side: host + PostgreSQL | at the highest held step |")
  console.log("| --- | ---: | ---: | ---: |")
  for (const s of sides) {
    const d = s.drain
    const top = s.steps.find((r) => r.target === highestHeld(s.steps))
    console.log(
      `| ${s.host.tree} | ${d ? `${f0(d.write.hostUs)} + ${f0(d.write.pgUs)}` : "–"} | ${d ? `${f0(d.deliver.hostUs)} + ${f0(d.deliver.pgUs)}` : "–"} | ${top ? `${f0(top.hostUs)} + ${f0(top.pgUs)}` : "–"} |`
    )
  }
  if (preloaded.includes("pg_stat_statements")) reportStatements(sides)
}

const receiver = await startReceiver()
const database = new URL(url).pathname.slice(1)

/** Whether pg_stat_statements could split PostgreSQL's side by statement (it needs a preload, so a restart). */
const showPreloaded = async () => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return String((await client.query("SHOW shared_preload_libraries")).rows[0]?.shared_preload_libraries ?? "")
  } finally {
    await client.end()
  }
}
const sides: Array<Side> = []
const preloaded = await showPreloaded()
let statements: StatementSampler | undefined
try {
  statements = await statementSampler(url, preloaded)
  console.log(
    `bench/sustained: trees ${TREES.join(", ")}; rates ${RATES.join(", ")}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`
  )
  for (const [i, tree] of TREES.entries()) {
    const host = await startHost(tree, i, {
      databaseUrl: url,
      receiverUrl: receiver.url,
      partnerCount: PARTNERS,
      flags: HOST_FLAGS
    })
    const sampler = await pgSampler(url, database, host.applicationName)
    const times: Array<StatementTimes | undefined> = []
    const split = statements
    const during = async <A>(phase: () => Promise<A>) => {
      const around = await split.around(() => sampler.during([host.child.pid], phase))
      times.push(around.times)
      return around.result
    }
    sides.push({ host, during, endSampler: sampler.end, steps: [], times, stepTimes: new Map(), climbing: true })
  }
  for (const s of sides) {
    if (WARMUP_SECONDS > 0)
      await runStep(s.host, receiver, RATES[0]!, { ...settings, seconds: WARMUP_SECONDS }, s.during)
    s.drain = await drainOnly(s.host, receiver, DRAIN_EVENTS, settings, s.during)
    s.drainTimes = { write: s.times.at(-2), deliver: s.times.at(-1) }
    console.log(
      `  ${s.host.tree}: drain-only ${f0(s.drain.rate)}/s (${s.drain.delivered} of ${s.drain.queued} queued delivered; ${s.drain.emitted} emitted)`
    )
  }
  for (const [k, rate] of RATES.entries()) {
    const order = sides.map((_, i) => sides[(i + k) % sides.length]!)
    for (const s of order.filter((x) => x.climbing)) {
      const r = await runStep(s.host, receiver, rate, settings, s.during)
      s.steps.push(r)
      s.stepTimes.set(rate, s.times.at(-1))
      printStep(s, r)
      if (notHeldBecause(r).length > 0) s.climbing = false
    }
    if (sides.every((s) => !s.climbing)) break
  }
  report(sides, preloaded)
} finally {
  await statements?.end()
  for (const s of sides) {
    await s.endSampler()
    await s.host.stop()
  }
  await receiver.close()
}
process.exit(0)
