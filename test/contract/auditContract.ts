/**
 * Contract suite of the audit log (`AuditLog` over an `AuditStore`), run on memory, PGlite and
 * PostgreSQL: records round-trip with every field, pages are newest first and continue by keyset
 * cursor without gaps or repeats (also while records are appended), filters apply, partners see
 * only their own, retention removes old records in bounded statements, and on SQL a change and
 * its record commit or roll back together.
 */
import { randomUUID } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Audit, Ids } from "@frank/core"
import { testPartner } from "@frank/core/testing"
import { Effect, Either, Layer, TestClock } from "effect"
import { type AuditStore, PartnerStore } from "@frank/core/stores"

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0)
const DAY = 86_400_000

const origin = (label: string): Audit.AuditOrigin => ({
  actor: { type: "api_key", id: randomUUID(), label },
  requestId: `req-${label}`,
  ip: "203.0.113.7",
  idempotencyKey: `idem-${label}`
})

const change = (action: string, id: string, changes: ReadonlyArray<string> = ["label"]): Audit.AuditChange => ({
  action,
  target: { type: action.split(".")[0] as string, id },
  changes
})

/** Every page of the partner's log, following the cursor. */
const allPages = (log: Audit.AuditLogShape, partnerId: Ids.PartnerId, limit: number, action?: string) =>
  Effect.gen(function* () {
    const pages: Array<ReadonlyArray<Audit.AuditRecord>> = []
    let after: Audit.AuditCursor | undefined
    for (;;) {
      const page = yield* log.list(partnerId, { limit, action }, after)
      pages.push(page.items)
      if (page.nextCursor === null) return pages
      after = Either.getOrThrow(Audit.decodeAuditCursor(page.nextCursor))
    }
  })

export const auditContract = (
  engine: string,
  stores: Layer.Layer<AuditStore | PartnerStore, unknown>,
  options: { readonly transactional: boolean }
) => {
  const config = { ...Audit.defaultAuditConfig, retentionDays: 30, batchSize: 3 }
  const Env = Audit.AuditLog.layerWith(config).pipe(Layer.provideMerge(stores), Layer.provideMerge(Ids.Ids.layer))

  layer(Env, { timeout: 120_000 })(`audit log on ${engine}`, (it) => {
    it.effect("records round-trip with actor, target, request and the names of the changed fields", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const log = yield* Audit.AuditLog
        const p = testPartner(`p_${randomUUID()}`)
        const o = origin("ci")
        yield* Audit.withAuditOrigin(o)(log.record(p, change("api_key.renamed", "k1", ["label", "label", "scopes"])))
        const page = yield* log.list(p, { limit: 10 })
        expect(page.nextCursor).toBeNull()
        expect(page.items).toHaveLength(1)
        expect(page.items[0]).toMatchObject({
          partnerId: p,
          at: T0,
          actor: o.actor,
          action: "api_key.renamed",
          target: { type: "api_key", id: "k1" },
          requestId: "req-ci",
          ip: "203.0.113.7",
          idempotencyKey: "idem-ci",
          changes: ["label", "scopes"]
        })
        expect(page.items[0]?.id).toMatch(/^[0-9a-f-]{36}$/)
        // A record without a request (the system) keeps its nulls.
        yield* TestClock.adjust(1)
        yield* Audit.withAuditOrigin(Audit.systemOrigin)(
          log.record(p, change("webhook_endpoint.paused", "e1", ["active"]))
        )
        const [newest] = (yield* log.list(p, { limit: 1 })).items
        expect(newest).toMatchObject({ actor: { type: "system", id: null, label: null }, requestId: null, ip: null })
      })
    )

    it.effect("pages newest first by keyset: every record once, none skipped while new ones arrive", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const log = yield* Audit.AuditLog
        const p = testPartner(`p_${randomUUID()}`)
        // Several records share a millisecond: the id orders them.
        for (let i = 0; i < 11; i++) {
          if (i % 3 === 0) yield* TestClock.adjust(1000)
          yield* Audit.withAuditOrigin(origin(`n${i}`))(
            log.record(p, change(i % 2 === 0 ? "api_key.issued" : "api_key.revoked", `k${i}`))
          )
        }
        const first = yield* log.list(p, { limit: 4 })
        expect(first.items).toHaveLength(4)
        // A record appended between pages is newer than the cursor: it does not shift the pages.
        yield* TestClock.adjust(1000)
        yield* Audit.withAuditOrigin(origin("late"))(log.record(p, change("api_key.issued", "late")))
        const rest = yield* allPages(log, p, 4)
        const cursorAfterFirst = Either.getOrThrow(Audit.decodeAuditCursor(first.nextCursor!))
        const continued = yield* log.list(p, { limit: 100 }, cursorAfterFirst)
        const ids = [...first.items, ...continued.items].map((r) => r.target.id)
        expect(ids).toHaveLength(11)
        expect(new Set(ids).size).toBe(11)
        expect(ids).not.toContain("late")
        const flat = rest.flat()
        expect(flat).toHaveLength(12)
        for (let i = 1; i < flat.length; i++) {
          const a = flat[i - 1]!
          const b = flat[i]!
          expect(a.at > b.at || (a.at === b.at && a.id > b.id)).toBe(true)
        }
        const revoked = (yield* allPages(log, p, 2, "api_key.revoked")).flat()
        expect(revoked.map((r) => r.action)).toEqual(Array(5).fill("api_key.revoked"))
      })
    )

    it.effect("filters by time range [from, to) and shows a partner only its own records", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const log = yield* Audit.AuditLog
        const p = testPartner(`p_${randomUUID()}`)
        const other = testPartner(`p_${randomUUID()}`)
        for (let day = 0; day < 4; day++) {
          yield* Audit.withAuditOrigin(origin(`d${day}`))(
            log.record(p, change("invoice.created", `i${day}`, ["amount"]))
          )
          yield* Audit.withAuditOrigin(origin(`o${day}`))(
            log.record(other, change("invoice.created", `o${day}`, ["amount"]))
          )
          yield* TestClock.adjust(DAY)
        }
        const range = yield* log.list(p, { limit: 100, from: T0 + DAY, to: T0 + 3 * DAY })
        expect(range.items.map((r) => r.target.id)).toEqual(["i2", "i1"])
        expect((yield* log.list(p, { limit: 100 })).items.every((r) => r.partnerId === p)).toBe(true)
        expect((yield* log.list(p, { limit: 100, action: "api_key.issued" })).items).toEqual([])
      })
    )

    it.effect("retention removes records older than the period in statements of at most the batch size", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0 + 1000 * DAY)
        const log = yield* Audit.AuditLog
        const p = testPartner(`p_${randomUUID()}`)
        for (let i = 0; i < 7; i++)
          yield* Audit.withAuditOrigin(origin(`old${i}`))(log.record(p, change("api_key.issued", `old${i}`)))
        yield* TestClock.adjust(20 * DAY)
        yield* Audit.withAuditOrigin(origin("young"))(log.record(p, change("api_key.issued", "young")))
        yield* TestClock.adjust(11 * DAY)
        const swept = yield* log.sweep
        // Other tests' records are older still and go too; at least ours, in batches of 3.
        expect(swept.removed).toBeGreaterThanOrEqual(7)
        expect(swept.statements).toBe(Math.floor(swept.removed / 3) + 1)
        expect((yield* log.list(p, { limit: 100 })).items.map((r) => r.target.id)).toEqual(["young"])
        expect((yield* log.sweep).removed).toBe(0)
      })
    )

    it.effect("a change and its record commit together; a failing change leaves no record", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const log = yield* Audit.AuditLog
        const partners = yield* PartnerStore
        const p = testPartner(`p_${randomUUID()}`)
        const failed = yield* Effect.either(
          Audit.withAuditOrigin(origin("x"))(
            log.recorded(p, change("partner.created", p, ["name"]), Effect.fail("refused" as const))
          )
        )
        expect(failed).toEqual(Either.left("refused"))
        expect((yield* log.list(p, { limit: 10 })).items).toEqual([])
        const created = yield* log.recorded(
          p,
          (x: { id: string }) => change("partner.created", x.id, ["name"]),
          Effect.as(partners.create({ id: p, name: "Acme", createdAt: T0 }), { id: p })
        )
        expect(created).toEqual({ id: p })
        expect((yield* log.list(p, { limit: 10 })).items.map((r) => r.action)).toEqual(["partner.created"])
        if (!options.transactional) return
        // The store refuses this record (the actor type is not one it knows): the partner written
        // before it in the same transaction is rolled back with it.
        const q = testPartner(`p_${randomUUID()}`)
        const bad = { ...origin("bad"), actor: { type: "robot" as never, id: null, label: null } }
        const refused = yield* Effect.either(
          Audit.withAuditOrigin(bad)(
            log.recorded(
              q,
              change("partner.created", q, ["name"]),
              partners.create({ id: q, name: "Rolled back", createdAt: T0 })
            )
          )
        )
        expect(Either.isLeft(refused)).toBe(true)
        expect(yield* partners.get(q)).toBeUndefined()
      })
    )
  })
}
