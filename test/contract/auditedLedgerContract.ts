/**
 * Contract of the audited ledger (`Audit.AuditedLedger`): an operator's credit (a bonus grant with
 * expiry and priority) and each balance alert created or deleted append exactly one record, with
 * the request's origin and the names of the fields set; a repeated credit or a refused change
 * appends none; and on SQL the change and its record commit or roll back together.
 */
import { randomUUID } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Audit, Ids, Ledger } from "@frank/core"
import { testPartner } from "@frank/core/testing"
import { Effect, Either, Layer, TestClock } from "effect"
import { recordingOutbox } from "./recordingOutbox.js"
import type { AuditStore, LedgerStore } from "@frank/core/stores"

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0)
const DAY = 86_400_000
/** The ledger's MAX_ALERTS_PER_PARTNER (the spec's five). */
const MAX_ALERTS = 5

const admin: Audit.AuditOrigin = {
  actor: { type: "admin", id: "admin", label: "FRANK_ADMIN_TOKEN" },
  requestId: "req-grant",
  ip: "203.0.113.9",
  idempotencyKey: "idem-grant"
}

/** An origin the audit store refuses (no such actor type): its change must roll back with it. */
const refusedOrigin: Audit.AuditOrigin = { ...admin, actor: { type: "robot" as never, id: null, label: null } }

const logOf = (p: Ids.PartnerId) =>
  Effect.flatMap(Audit.AuditLog, (log) => Effect.map(log.list(p, { limit: 100 }), (page) => page.items))

export const auditedLedgerContract = (
  engine: string,
  stores: Layer.Layer<LedgerStore | AuditStore, unknown>,
  options: { readonly transactional: boolean }
) => {
  const Env = Audit.AuditedLedger.pipe(
    Layer.provide(Ledger.Ledger.layer),
    Layer.provideMerge(Audit.AuditLog.layer),
    Layer.provideMerge(recordingOutbox),
    Layer.provideMerge(stores),
    Layer.provideMerge(Ids.Ids.layer)
  )

  layer(Env, { timeout: 120_000 })(`audited ledger on ${engine}`, (it) => {
    it.effect("a bonus grant with expiry and priority appends one credit.added record; its replay none", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = testPartner(`p_${randomUUID()}`)
        const cmd = {
          kind: "bonus" as const,
          amountMinor: 5_000,
          note: "welcome",
          reference: `grant-${p}`,
          grant: { expiresAt: T0 + 7 * DAY, priority: 10 }
        }
        const first = yield* Audit.withAuditOrigin(admin)(ledger.credit(p, cmd))
        const again = yield* Audit.withAuditOrigin(admin)(ledger.credit(p, cmd))
        expect(again.replayed).toBe(true)
        const records = yield* logOf(p)
        expect(records).toHaveLength(1)
        expect(records[0]).toMatchObject({
          at: T0,
          actor: admin.actor,
          action: "credit.added",
          target: { type: "ledger_entry", id: first.entry.id },
          requestId: "req-grant",
          ip: "203.0.113.9",
          idempotencyKey: "idem-grant",
          changes: ["amount", "kind", "description", "reference", "expiresAt", "priority"]
        })
        // A plain top-up names only what it set (a millisecond later: pages order by time, then id).
        yield* TestClock.adjust(1)
        yield* ledger.credit(p, { kind: "topup", amountMinor: 100 })
        expect((yield* logOf(p))[0]?.changes).toEqual(["amount", "kind"])
      })
    )

    it.effect("a refused grant (expiry in the past) appends nothing", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = testPartner(`p_${randomUUID()}`)
        const refused = yield* Effect.either(
          ledger.credit(p, { kind: "bonus", amountMinor: 100, grant: { expiresAt: T0 - 1 } })
        )
        expect(Either.isLeft(refused)).toBe(true)
        expect(yield* logOf(p)).toEqual([])
      })
    )

    it.effect("each alert created or deleted appends one record; a refused one none", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = testPartner(`p_${randomUUID()}`)
        const alerts = []
        for (let i = 1; i <= MAX_ALERTS; i++)
          alerts.push(yield* Audit.withAuditOrigin(admin)(ledger.createAlert(p, i * 1_000)))
        // Over the limit, an invalid threshold, an unknown alert: refusals, no records.
        expect(Either.isLeft(yield* Effect.either(ledger.createAlert(p, 50_000)))).toBe(true)
        expect(Either.isLeft(yield* Effect.either(ledger.createAlert(p, 1)))).toBe(true)
        yield* TestClock.adjust(1)
        yield* Audit.withAuditOrigin(admin)(ledger.deleteAlert(p, alerts[0]!.id))
        expect(Either.isLeft(yield* Effect.either(ledger.deleteAlert(p, alerts[0]!.id)))).toBe(true)
        expect(Either.isLeft(yield* Effect.either(ledger.deleteAlert(p, randomUUID())))).toBe(true)
        const records = yield* logOf(p)
        expect(records.map((r) => r.action)).toEqual([
          "balance_alert.deleted",
          ...Array(MAX_ALERTS).fill("balance_alert.created")
        ])
        expect(records[0]).toMatchObject({
          target: { type: "balance_alert", id: alerts[0]!.id },
          changes: ["deletedAt"],
          actor: admin.actor
        })
        expect(new Set(records.slice(1).map((r) => r.target.id))).toEqual(new Set(alerts.map((a) => a.id)))
        expect(records.slice(1).every((r) => r.changes.join() === "threshold")).toBe(true)
      })
    )

    it.effect("a record the store refuses rolls its grant or alert change back (SQL)", () =>
      Effect.gen(function* () {
        if (!options.transactional) return
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = testPartner(`p_${randomUUID()}`)
        const alert = yield* ledger.createAlert(p, 1_000)
        const grant = yield* Effect.either(
          Audit.withAuditOrigin(refusedOrigin)(
            ledger.credit(p, { kind: "bonus", amountMinor: 700, grant: { expiresAt: T0 + DAY, priority: 5 } })
          )
        )
        expect(Either.isLeft(grant)).toBe(true)
        expect((yield* ledger.totals(p)).totalMinor).toBe(0)
        expect(yield* ledger.grants(p)).toEqual([])
        const created = yield* Effect.either(Audit.withAuditOrigin(refusedOrigin)(ledger.createAlert(p, 2_000)))
        expect(Either.isLeft(created)).toBe(true)
        const deleted = yield* Effect.either(Audit.withAuditOrigin(refusedOrigin)(ledger.deleteAlert(p, alert.id)))
        expect(Either.isLeft(deleted)).toBe(true)
        expect((yield* ledger.alerts(p)).map((a) => a.id)).toEqual([alert.id])
        expect((yield* logOf(p)).map((r) => r.action)).toEqual(["balance_alert.created"])
      })
    )
  })
}
