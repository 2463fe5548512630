/**
 * The invariants the campaign checks after every step, and the ones it checks once the seed has
 * drained. Each returns the violations it found, as sentences naming the partner and the id.
 */
import { Access, type Ids, Invoices, Ledger, Payments, Tasks, Webhooks } from "@frank/core"
import { Clock, Effect, Either } from "effect"
import { SIMULATION_EXPIRY } from "./engine.js"
import { acknowledged, Receivers } from "./receiver.js"
import type { PartnerModel, World } from "./world.js"
import { testTask } from "@frank/core/testing"

const allEntries = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Ledger.Ledger, (l) =>
    Effect.flatMap(l.countEntries(partnerId, {}), (n) =>
      Effect.map(l.listEntries(partnerId, {}, 0, Math.max(1, n)), (page) => page.items)
    )
  )

/** total = Σ entries, reserved = Σ open holds, available ≥ 0; each hold reserved and settled at most once. */
const ledgerViolations = (p: PartnerModel) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    const out: Array<string> = []
    const totals = yield* ledger.totals(p.id)
    const entries = yield* allEntries(p.id)
    const folded = Ledger.foldEntries(entries)
    if (JSON.stringify(folded) !== JSON.stringify(totals))
      out.push(`${p.id}: totals ${JSON.stringify(totals)} differ from Σ entries ${JSON.stringify(folded)}`)
    if (!Ledger.totalsAreValid(totals)) out.push(`${p.id}: invalid totals ${JSON.stringify(totals)}`)
    const byTask = new Map<string, { reservations: number; settlements: number; releases: number }>()
    for (const e of entries) {
      if (e.taskId === null) continue
      const c = byTask.get(e.taskId) ?? { reservations: 0, settlements: 0, releases: 0 }
      // A confirm below the hold also writes a `task_release` refund for the remainder.
      if (e.type === "reservation") c.reservations++
      else if (e.kind === "task_release") c.releases++
      else if (e.type === "confirm" || e.type === "refund") c.settlements++
      byTask.set(e.taskId, c)
    }
    let openReserved = 0
    for (const taskId of [...p.holds, ...p.tasks]) {
      const hold = yield* ledger.hold(p.id, testTask(taskId))
      const c = byTask.get(taskId) ?? { reservations: 0, settlements: 0, releases: 0 }
      if (c.reservations > 1) out.push(`${p.id}: hold ${taskId} reserved ${c.reservations} times`)
      if (c.settlements > 1) out.push(`${p.id}: hold ${taskId} settled ${c.settlements} times`)
      if (c.releases > (hold?.status === "confirmed" ? 1 : 0))
        out.push(`${p.id}: hold ${taskId} (${hold?.status}) released ${c.releases} times`)
      if (hold === undefined) continue
      if (hold.status === "open") openReserved += hold.reservedMinor
      if ((hold.status === "open") !== (c.settlements === 0))
        out.push(`${p.id}: hold ${taskId} is ${hold.status} with ${c.settlements} settlement entries`)
    }
    if (openReserved !== totals.reservedMinor)
      out.push(`${p.id}: reserved ${totals.reservedMinor} but open holds sum to ${openReserved}`)
    return { out, entries }
  })

const creditedBy = (entries: ReadonlyArray<Ledger.LedgerEntry>, reference: string) =>
  entries.filter((e) => e.reference === reference && e.type === "topup").length

/** The hold a task's status implies: none for a free task, else open, confirmed or refunded. */
const holdOfTask = (task: Tasks.Task): string =>
  task.reservedMinor === 0
    ? "none"
    : task.status === "succeeded"
      ? "confirmed"
      : task.status === "failed"
        ? "refunded"
        : "open"

/**
 * Every task hold settled exactly once, by confirm, refund or expiry, and as its task says: a
 * succeeded task's hold confirmed, a failed one's refunded (by a `task_hold_expired` row exactly
 * when the task failed TASK_EXPIRED), an unfinished one's open; no task left unfinished a sweep
 * interval past its `expiresAt`; a late report only on an expired task.
 */
const taskHoldViolations = (p: PartnerModel, entries: ReadonlyArray<Ledger.LedgerEntry>) =>
  Effect.gen(function* () {
    const tasks = yield* Tasks.Tasks
    const ledger = yield* Ledger.Ledger
    const now = yield* Clock.currentTimeMillis
    const out: Array<string> = []
    for (const id of p.tasks) {
      const task = yield* Effect.orDie(tasks.get(p.id, id))
      const hold = yield* ledger.hold(p.id, id)
      const expected = holdOfTask(task)
      if ((hold?.status ?? "none") !== expected)
        out.push(`${p.id}: task ${id} is ${task.status} but its hold is ${hold?.status ?? "missing"}`)
      if (hold !== undefined && hold.expiresAt !== task.expiresAt)
        out.push(`${p.id}: task ${id} expires at ${task.expiresAt}, its hold at ${hold.expiresAt}`)
      const rows = entries.filter((e) => e.taskId === id && e.kind === "task_hold_expired").length
      const expired = task.failure?.code === "TASK_EXPIRED"
      if (rows !== (expired && task.reservedMinor > 0 ? 1 : 0))
        out.push(`${p.id}: task ${id} (${task.failure?.code ?? task.status}) has ${rows} expiry refunds`)
      if (
        (task.status === "queued" || task.status === "running") &&
        task.expiresAt <= now - SIMULATION_EXPIRY.sweepIntervalMs
      )
        out.push(`${p.id}: task ${id} still ${task.status} ${now - task.expiresAt} ms after it expired`)
      if (task.lateReport !== null && !expired) out.push(`${p.id}: task ${id} has a late report but did not expire`)
    }
    return out
  })

/** Every confirmed payment and paid invoice credited exactly once; nothing else credited. */
const creditViolations = (p: PartnerModel, entries: ReadonlyArray<Ledger.LedgerEntry>) =>
  Effect.gen(function* () {
    const out: Array<string> = []
    const payments = yield* Payments.Payments
    for (const { id } of p.payments) {
      const payment = yield* Effect.orDie(payments.get(p.id, id))
      const n = creditedBy(entries, id)
      if (n !== (payment.status === "confirmed" ? 1 : 0))
        out.push(`${p.id}: payment ${id} is ${payment.status} and credited ${n} times`)
    }
    const invoices = yield* Invoices.Invoices
    for (const id of p.invoices) {
      const invoice = yield* Effect.orDie(invoices.get(p.id, id))
      const n = creditedBy(entries, id)
      if (n !== (invoice.status === "paid" ? 1 : 0))
        out.push(`${p.id}: invoice ${id} is ${invoice.status} and credited ${n} times`)
    }
    return out
  })

/**
 * Grants: Σ grant remainders + non-expiring money = available + reserved, where non-expiring money
 * is never negative and live grants never promise more than available; what grants lent to holds
 * equals what the open holds drew from them; an expired grant keeps only what holds took.
 */
const grantViolations = (p: PartnerModel) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    const out: Array<string> = []
    const totals = yield* ledger.totals(p.id)
    const grants = yield* ledger.grants(p.id)
    const remaining = grants.reduce((s, g) => s + g.remainingMinor, 0)
    const nonExpiring = totals.totalMinor - totals.usedMinor - remaining
    if (nonExpiring < 0) out.push(`${p.id}: grants hold ${remaining}, more than available + reserved`)
    // What a live grant can still give: its unreserved remainder (core's grantAvailableMinor).
    const grantAvailable = grants.reduce(
      (s, g) => s + (g.expiredAt === null ? g.remainingMinor - g.reservedMinor : 0),
      0
    )
    if (grantAvailable > Ledger.availableMinor(totals))
      out.push(`${p.id}: grants offer ${grantAvailable}, more than available ${Ledger.availableMinor(totals)}`)
    const lent = new Map<string, number>()
    for (const taskId of [...p.holds, ...p.tasks]) {
      const hold = yield* ledger.hold(p.id, testTask(taskId))
      if (hold?.status !== "open") continue
      for (const d of hold.draws) lent.set(d.grantId, (lent.get(d.grantId) ?? 0) + d.amountMinor)
    }
    for (const g of grants) {
      if (g.reservedMinor !== (lent.get(g.id) ?? 0))
        out.push(`${p.id}: grant ${g.id} reserved ${g.reservedMinor}, open holds drew ${lent.get(g.id) ?? 0}`)
      if (g.expiredAt !== null && g.remainingMinor !== g.reservedMinor)
        out.push(`${p.id}: expired grant ${g.id} keeps ${g.remainingMinor} beyond its holds' ${g.reservedMinor}`)
    }
    return out
  })

/**
 * One alert event per crossing: each alert's events alternate, starting from the state it was
 * created in, and a live alert has as many as its crossings and ends in its current state.
 */
const alertViolations = (world: World) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    const out: Array<string> = []
    for (const p of world.partners) {
      const live = new Map((yield* ledger.alerts(p.id)).map((a) => [a.id, a]))
      for (const [id, start] of p.alertStart) {
        const states = world.alertEvents.filter((e) => e.alertId === id).map((e) => e.state)
        let state: string = start
        for (const s of states) {
          const expected = state === "ok" ? "triggered" : "resolved"
          if (s !== expected) out.push(`${p.id}: alert ${id} sent ${s} while ${state}`)
          state = s === "triggered" ? "triggered" : "ok"
        }
        const a = live.get(id)
        if (a !== undefined && (a.crossings !== states.length || a.state !== state))
          out.push(`${p.id}: alert ${id} is ${a.state} after ${a.crossings} crossings, ${states.length} events sent`)
      }
    }
    return out
  })

/** A revoked key never authenticates again. */
const keyViolations = (p: PartnerModel) =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const out: Array<string> = []
    for (const k of p.keys.filter((k) => k.revoked)) {
      const auth = yield* Effect.either(access.authenticateKey(k.raw))
      if (Either.isRight(auth)) out.push(`${p.id}: revoked key ${k.id} still authenticates`)
    }
    return out
  })

/** Each Idempotency-Key that ran made exactly one ledger entry; no keyed entry without its stored answer. */
const keyedViolations = (p: PartnerModel, entries: ReadonlyArray<Ledger.LedgerEntry>) => {
  const out: Array<string> = []
  const byKey = new Map<string, Array<string>>()
  for (const e of entries) {
    const m = /: keyed (\S+)$/.exec(e.description)
    if (m !== null) byKey.set(m[1]!, [...(byKey.get(m[1]!) ?? []), e.id])
  }
  for (const [key, ids] of byKey) {
    const ran = p.keyed.get(key)
    if (ran === undefined) out.push(`${p.id}: key ${key} made entries ${ids.join(", ")} but holds no answer`)
    else if (ids.length !== 1 || ids[0] !== ran.entryId)
      out.push(`${p.id}: key ${key} ran ${ids.length} times (${ids.join(", ")}); its answer names ${ran.entryId}`)
  }
  for (const key of p.keyed.keys()) if (!byKey.has(key)) out.push(`${p.id}: key ${key} answered but made no entry`)
  return out
}

/** No receiver acknowledged one event twice at one endpoint, beyond the replays asked for. */
export const receiverViolations = (world: World) =>
  Effect.map(Receivers, (r) => {
    const byUrl = new Map(world.partners.flatMap((p) => p.endpoints).map((e) => [e.url, e.id]))
    const acks = new Map<string, number>()
    const out: Array<string> = []
    for (const a of r.attempts) {
      if (!acknowledged(a)) continue
      const k = `${byUrl.get(a.url)} ${a.eventId}`
      const n = (acks.get(k) ?? 0) + 1
      acks.set(k, n)
      const allowed = 1 + (world.replays.get(k) ?? 0)
      if (n > allowed) out.push(`${a.url}: event ${a.eventId} acknowledged ${n} times, ${allowed} allowed`)
    }
    return out
  })

export const stepViolations = (world: World) =>
  Effect.gen(function* () {
    const out: Array<string> = []
    for (const p of world.partners) {
      const ledger = yield* ledgerViolations(p)
      out.push(
        ...ledger.out,
        ...(yield* creditViolations(p, ledger.entries)),
        ...(yield* taskHoldViolations(p, ledger.entries)),
        ...keyedViolations(p, ledger.entries),
        ...(yield* keyViolations(p))
      )
      out.push(...(yield* grantViolations(p)))
    }
    out.push(...(yield* alertViolations(world)))
    out.push(...(yield* receiverViolations(world)))
    out.push(...world.keyViolations)
    return out
  })

export const allDeliveries = (partnerId: Ids.PartnerId) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks.Webhooks
    const out: Array<Webhooks.DeliveryRecord> = []
    let cursor: string | undefined
    for (;;) {
      const page = yield* Effect.orDie(webhooks.listDeliveries(partnerId, {}, 100, cursor))
      out.push(...page.deliveries)
      if (page.next === null) return out
      cursor = Webhooks.encodeCursor(page.next)
    }
  })

const terminal = new Set(["delivered", "dead_lettered", "uncertain"])

/** After the drain: every written event reached each endpoint it targeted, and ended there. */
export const drainedViolations = (world: World) =>
  Effect.gen(function* () {
    const out: Array<string> = []
    for (const p of world.partners) {
      const deliveries = yield* allDeliveries(p.id)
      const byKey = new Map(deliveries.map((d) => [`${d.endpointId} ${d.eventId}`, d]))
      for (const d of deliveries)
        if (!terminal.has(d.status)) out.push(`${p.id}: delivery ${d.id} (${d.eventType}) still ${d.status}`)
      const deleted = new Set<string>(p.endpoints.filter((e) => e.deleted).map((e) => e.id))
      for (const ev of world.expected.filter((x) => x.partnerId === p.id))
        for (const endpointId of ev.endpointIds)
          if (!deleted.has(endpointId) && !byKey.has(`${endpointId} ${ev.eventId}`))
            out.push(`${p.id}: event ${ev.eventId} (${ev.type}) lost for endpoint ${endpointId}`)
    }
    return out
  })
