/**
 * One seed of the campaign: three partners, `steps` operations drawn from the seed, the invariants
 * after every step (or every `checkEvery` steps), then a drain (every endpoint resumed, 10 h of
 * simulated time) and the delivery invariants. The report carries the outcome of every step and
 * the final observable state, which the model check compares between store kinds.
 */
import { Access, Invoices, Ledger, Payments, Tasks, Webhooks } from "@frank/core"
import type { SqlClient } from "@effect/sql"
import { Effect, type Context } from "effect"
import { advance, underTestClock } from "./clock.js"
import { campaignEngine, SIMULATION_HOLD_TTL_MS, StoreProbe, type StoreKind, type WrittenEvent } from "./engine.js"
import { allDeliveries, drainedViolations, stepViolations } from "./invariants.js"
import { operations, operationWeights } from "./operations.js"
import { makePrng } from "./prng.js"
import { Receivers } from "./receiver.js"
import { newWorld, type PartnerModel, type World } from "./world.js"
import { eventViolations } from "../support/eventCatalogCheck.js"

export interface SeedReport {
  readonly seed: number
  readonly steps: number
  /** One line per step, then the final state: what the model check compares. */
  readonly trace: ReadonlyArray<string>
  /** Faults injected, by kind (receiver answers, store failures, clock jumps, worker crashes). */
  readonly faults: Readonly<Record<string, number>>
  /** Empty when every invariant held; otherwise the first step's violations. */
  readonly violations: ReadonlyArray<string>
}

export interface SeedOptions {
  readonly steps: number
  readonly kind: StoreKind
  readonly database?: Context.Context<SqlClient.SqlClient>
  /** Check the step invariants after every n-th step (1: every step). */
  readonly checkEvery?: number
}

/**
 * Seeds a campaign runs side by side. Each has its own engine and TestClock and waits on real
 * timers at every clock move; side by side, those waits overlap the other seeds' work. Each seed's
 * trace is the same as when it runs alone. PGlite runs stay one at a time (one database).
 */
export const SEEDS_AT_ONCE = 16

const DAY_MS = 86_400_000
/** Seeds start far apart, so the runs of one shared database never overlap in time. */
const startOf = (seed: number) => Date.UTC(2026, 0, 1) + (seed % 10_000) * 400 * DAY_MS

const setUp = (world: World) =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    for (let index = 0; index < 3; index++) {
      const partner = yield* Effect.orDie(access.createPartner(`Partner ${world.seed}/${index}`))
      const model: PartnerModel = {
        id: partner.id,
        index,
        holds: [],
        tasks: [],
        payments: [],
        invoices: [],
        endpoints: [],
        keys: [],
        profileRevision: 0,
        references: [],
        alerts: [],
        alertStart: new Map(),
        keyed: new Map()
      }
      world.partners.push(model)
      const url = `https://p${index}-first-${world.seed}.receiver.test/hook`
      const e = yield* Effect.orDie((yield* Webhooks.Webhooks).createEndpoint(partner.id, { url }))
      model.endpoints.push({ id: e.id, url, eventTypes: null, active: true, deleted: false })
    }
  })

/** The endpoints that must get `w`, from the world's own model of the partner's endpoints. */
const targetsOf = (world: World, w: WrittenEvent): ReadonlyArray<string> => {
  const p = world.partners.find((x) => x.id === w.partnerId)
  if (p === undefined) return []
  if (w.target._tag === "Endpoint") return [w.target.endpointId]
  return p.endpoints
    .filter((e) => !e.deleted && e.active && (e.eventTypes === null || e.eventTypes.some((t) => t === w.type)))
    .map((e) => e.id)
}

/** Keeps the events an operation that succeeded wrote; checks the store fanned each out as modelled. */
const keepWritten = (world: World, written: ReadonlyArray<WrittenEvent>): Array<string> => {
  const out: Array<string> = []
  for (const w of written) {
    const repeat = world.seenEvents.has(`${w.partnerId} ${w.eventId}`)
    const endpointIds = repeat ? [] : targetsOf(world, w)
    if (w.deliveries !== endpointIds.length)
      out.push(
        `${w.partnerId}: event ${w.eventId} (${w.type}) got ${w.deliveries} deliveries, ${endpointIds.length} expected`
      )
    world.seenEvents.add(`${w.partnerId} ${w.eventId}`)
    if (w.type === "billing.balance_alert" && !repeat) {
      const data = (JSON.parse(w.payload) as { data: { alertId: string; state: string } }).data
      world.alertEvents.push({ alertId: data.alertId, state: data.state })
    }
    for (const v of eventViolations(w.payload))
      out.push(`${w.partnerId}: event ${w.eventId} does not match the catalog: ${v}`)
    if (endpointIds.length > 0) world.expected.push({ ...w, endpointIds })
  }
  return out
}

const finalState = (world: World) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    for (const p of world.partners) {
      const b = yield* (yield* Ledger.Ledger).totals(p.id)
      lines.push(`final ${p.index} totals ${b.totalMinor}/${b.usedMinor}/${b.reservedMinor}`)
      const grants = (yield* (yield* Ledger.Ledger).grants(p.id)).map(
        (g) => `${g.grantedMinor}/${g.remainingMinor}/${g.reservedMinor}/${g.expiredAt ?? "-"}`
      )
      lines.push(`final ${p.index} grants ${grants.join("; ")}`)
      const deliveries = (yield* allDeliveries(p.id))
        .map((d) => `${d.eventType} ${d.endpointId} ${d.status} ${d.attempts} [${d.responseCodes.join(",")}]`)
        .sort()
      lines.push(`final ${p.index} deliveries ${deliveries.join("; ")}`)
      for (const id of p.tasks)
        lines.push(`final task ${(yield* Effect.orDie((yield* Tasks.Tasks).get(p.id, id))).status}`)
      for (const { id } of p.payments)
        lines.push(`final payment ${(yield* Effect.orDie((yield* Payments.Payments).get(p.id, id))).status}`)
      for (const id of p.invoices)
        lines.push(`final invoice ${(yield* Effect.orDie((yield* Invoices.Invoices).get(p.id, id))).status}`)
    }
    return lines
  })

/**
 * Every endpoint resumed, every bonus grant past its expiry (they expire within 3 days of their
 * credit), then long enough for every task hold to lapse (its events written) and for every retry
 * schedule and lease to end after that.
 */
const drain = (world: World) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks.Webhooks
    for (const p of world.partners)
      for (const e of p.endpoints.filter((x) => !x.deleted && !x.active)) {
        yield* Effect.orDie(webhooks.updateEndpoint(p.id, e.id, { active: true }))
        e.active = true
      }
    yield* Effect.orDie(advance(4 * 86_400_000))
    yield* Effect.orDie(advance(SIMULATION_HOLD_TTL_MS + 10 * 3600 * 1000))
  })

const runSteps = (world: World, options: SeedOptions, trace: Array<string>, faults: Record<string, number>) =>
  Effect.gen(function* () {
    const rng = makePrng(world.seed)
    const probe = yield* StoreProbe
    for (let step = 0; step < options.steps; step++) {
      const name = rng.weighted(operationWeights)
      const partner = rng.pick(world.partners)
      probe.written.length = 0
      const result = yield* operations[name][0]({ rng, world, partner })
      trace.push(`${step} p${partner.index} ${name}: ${result}`)
      if (name === "clockJump") faults["clock-jump"] = (faults["clock-jump"] ?? 0) + 1
      const succeeded = !result.startsWith("err") && !result.startsWith("fault err")
      const violations = succeeded ? keepWritten(world, probe.written) : []
      if (violations.length === 0 && (step + 1) % (options.checkEvery ?? 1) === 0)
        violations.push(...(yield* stepViolations(world)))
      if (violations.length > 0) return violations.map((v) => `step ${step} (${name}): ${v}`)
    }
    return []
  })

export const runSeed = (seed: number, options: SeedOptions): Effect.Effect<SeedReport> =>
  Effect.gen(function* () {
    const world = newWorld(seed)
    yield* setUp(world)
    const trace: Array<string> = []
    const faults: Record<string, number> = {}
    let violations = yield* runSteps(world, options, trace, faults)
    if (violations.length === 0) {
      const probe = yield* StoreProbe
      probe.written.length = 0
      yield* drain(world)
      // What the drain's sweeps wrote (grant expiries and the alert crossings they cause) is part
      // of the model as an operation's writes are: without it a crossing there looked unsent.
      const drained = keepWritten(world, probe.written)
      violations = [...drained, ...(yield* drainedViolations(world)), ...(yield* stepViolations(world))].map(
        (v) => `drained: ${v}`
      )
      trace.push(...(yield* finalState(world)))
    }
    const receivers = yield* Receivers
    const probe = yield* StoreProbe
    for (const [k, n] of Object.entries(receivers.faults)) faults[k] = (faults[k] ?? 0) + n
    faults["store-failure"] = probe.injected
    return { seed, steps: options.steps, trace, faults, violations }
  }).pipe(
    Effect.provide(campaignEngine(seed, options.kind, options.database)),
    underTestClock(startOf(seed)),
    Effect.orDie
  )
