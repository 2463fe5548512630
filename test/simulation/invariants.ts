/**
 * The invariants the campaign checks after every step, and the ones it checks once the seed has
 * drained. Each returns the violations it found, as sentences naming the partner and the id.
 */
import {
  Access,
  foldEntries,
  Invoices,
  Ledger,
  type LedgerEntry,
  Payments,
  totalsAreValid,
  Webhooks,
  type PartnerId
} from "@frank/core"
import { type DeliveryRecord, encodeCursor } from "@frank/core"
import { Effect, Either } from "effect"
import { acknowledged, Receivers } from "./receiver.js"
import type { PartnerModel, World } from "./world.js"

const allEntries = (partnerId: PartnerId) =>
  Effect.flatMap(Ledger, (l) =>
    Effect.flatMap(l.countEntries(partnerId, {}), (n) =>
      Effect.map(l.listEntries(partnerId, {}, 0, Math.max(1, n)), (page) => page.items)
    )
  )

/** total = Σ entries, reserved = Σ open holds, available ≥ 0; each hold reserved and settled at most once. */
const ledgerViolations = (p: PartnerModel) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const out: Array<string> = []
    const totals = yield* ledger.totals(p.id)
    const entries = yield* allEntries(p.id)
    const folded = foldEntries(entries)
    if (JSON.stringify(folded) !== JSON.stringify(totals))
      out.push(`${p.id}: totals ${JSON.stringify(totals)} differ from Σ entries ${JSON.stringify(folded)}`)
    if (!totalsAreValid(totals)) out.push(`${p.id}: invalid totals ${JSON.stringify(totals)}`)
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
      const hold = yield* ledger.hold(p.id, taskId)
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

const creditedBy = (entries: ReadonlyArray<LedgerEntry>, reference: string) =>
  entries.filter((e) => e.reference === reference && e.type === "topup").length

/** Every confirmed payment and paid invoice credited exactly once; nothing else credited. */
const creditViolations = (p: PartnerModel, entries: ReadonlyArray<LedgerEntry>) =>
  Effect.gen(function* () {
    const out: Array<string> = []
    const payments = yield* Payments
    for (const { id } of p.payments) {
      const payment = yield* Effect.orDie(payments.get(p.id, id))
      const n = creditedBy(entries, id)
      if (n !== (payment.status === "confirmed" ? 1 : 0))
        out.push(`${p.id}: payment ${id} is ${payment.status} and credited ${n} times`)
    }
    const invoices = yield* Invoices
    for (const id of p.invoices) {
      const invoice = yield* Effect.orDie(invoices.get(p.id, id))
      const n = creditedBy(entries, id)
      if (n !== (invoice.status === "paid" ? 1 : 0))
        out.push(`${p.id}: invoice ${id} is ${invoice.status} and credited ${n} times`)
    }
    return out
  })

/** A revoked key never authenticates again. */
const keyViolations = (p: PartnerModel) =>
  Effect.gen(function* () {
    const access = yield* Access
    const out: Array<string> = []
    for (const k of p.keys.filter((k) => k.revoked)) {
      const auth = yield* Effect.either(access.authenticateKey(k.raw))
      if (Either.isRight(auth)) out.push(`${p.id}: revoked key ${k.id} still authenticates`)
    }
    return out
  })

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
      out.push(...ledger.out, ...(yield* creditViolations(p, ledger.entries)), ...(yield* keyViolations(p)))
    }
    out.push(...(yield* receiverViolations(world)))
    return out
  })

export const allDeliveries = (partnerId: PartnerId) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const out: Array<DeliveryRecord> = []
    let cursor: string | undefined
    for (;;) {
      const page = yield* Effect.orDie(webhooks.listDeliveries(partnerId, {}, 100, cursor))
      out.push(...page.deliveries)
      if (page.next === null) return out
      cursor = encodeCursor(page.next)
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
