/**
 * The campaign's operations: each draws its arguments from the PRNG and the world, runs through
 * the engine's public services, updates the world, and answers a one-line summary of what the
 * engine said. Domain refusals are outcomes (summarised by tag); defects are failures.
 */
import { SandboxNotification } from "@frank/adapters"
import { Access, Events, Invoices, Ledger, Payments, Tasks, Webhooks } from "@frank/core"
import { Idempotency } from "@frank/core/http"
import { Clock, Effect, Either, Exit, TestClock } from "effect"
import { advance as advanceClock, jump } from "./clock.js"
import { SANDBOX_SECRET, SIMULATION_HOLD_TTL_MS, StoreProbe } from "./engine.js"
import type { Prng } from "./prng.js"
import { type Mood, Receivers } from "./receiver.js"
import type { PartnerModel, World } from "./world.js"
import { testTask } from "@frank/core/testing"

export interface OpContext {
  readonly rng: Prng
  readonly world: World
  readonly partner: PartnerModel
}

type Services =
  | Ledger.Ledger
  | Webhooks.Webhooks
  | Tasks.Tasks
  | Payments.Payments
  | Invoices.Invoices
  | Access.Access
  | Webhooks.DeliveryWorker
  | Ledger.GrantExpiry
  | Tasks.TaskExpiry
  | Receivers
  | StoreProbe
  | Idempotency.IdempotencyStore
export type Operation = (ctx: OpContext) => Effect.Effect<string, never, Services>

/** `ok …` or `err <tag>`: what the engine answered, comparable between store kinds. */
const outcome = <A, E extends { readonly _tag: string }, R>(
  effect: Effect.Effect<A, E, R>,
  show: (a: A) => string = () => ""
): Effect.Effect<string, never, R> =>
  Effect.map(Effect.either(effect), (e) => (Either.isRight(e) ? `ok ${show(e.right)}`.trim() : `err ${e.left._tag}`))

const both = <R>(a: Effect.Effect<string, never, R>, b: Effect.Effect<string, never, R>) =>
  Effect.map(Effect.all([a, b], { concurrency: "unbounded" }), (r) => `concurrent [${[...r].sort().join(" | ")}]`)

const fresh = (world: World, prefix: string) => `${prefix}-${world.seed}-${++world.counter}`
const franks = (rng: Prng, max: number) => rng.int(1, max) * 100 + rng.pick([0, 0, 1, 50, 99])

const credit: Operation = ({ rng, world, partner }) => {
  const repeat = partner.references.length > 0 && rng.chance(0.2)
  const reference = repeat ? rng.pick(partner.references) : rng.chance(0.5) ? fresh(world, "ref") : undefined
  if (reference !== undefined && !repeat) partner.references.push(reference)
  const kind = rng.pick(["topup", "bonus", "adjustment"] as const)
  return outcome(
    Effect.flatMap(Ledger.Ledger, (l) => l.credit(partner.id, { kind, amountMinor: franks(rng, 20_000), reference })),
    (r) => `credit ${kind} replayed=${r.replayed} total=${r.totals.totalMinor}`
  )
}

/**
 * A credit sent with an Idempotency-Key from a small pool, as a client retries one: mostly the
 * same request again (the stored answer, nothing runs), now and then the same key with another
 * amount (refused). What it sees is checked against the world: a key never runs twice.
 */
const keyedCredit: Operation = ({ rng, world, partner }) => {
  const key = `sim-${world.seed}-${rng.int(1, 2)}`
  const first = partner.keyed.get(key)
  const amountMinor = first !== undefined && rng.chance(0.8) ? first.amountMinor : franks(rng, 5_000)
  const same = first !== undefined && first.amountMinor === amountMinor
  const broken = (what: string) => world.keyViolations.push(`${partner.id}: key ${key} ${what}`)
  return Effect.gen(function* () {
    const body = JSON.stringify({ kind: "topup", amountMinor })
    const fingerprint = yield* Idempotency.requestFingerprint("POST", "/simulation/credits", body)
    const ledger = yield* Ledger.Ledger
    const once = yield* Effect.either(
      Idempotency.runOnce(
        { scope: `partner:${partner.id}`, key, fingerprint },
        ledger.credit(partner.id, { kind: "topup", amountMinor, note: `keyed ${key}` }),
        Exit.match({
          onFailure: () => undefined,
          onSuccess: (r) => ({ status: 201, body: r.entry.id, contentType: "text/plain" })
        })
      )
    )
    if (Either.isLeft(once)) {
      if (once.left._tag === "IdempotencyKeyMismatch" && same) broken("refused its own first request")
      return `err ${once.left._tag}`
    }
    if (once.right._tag === "Replayed") {
      if (!same) broken(`replayed ${once.right.answer.body} for another request`)
      else if (once.right.answer.body !== first.entryId)
        broken(`replayed ${once.right.answer.body}, ran ${first.entryId}`)
      return `keyed replayed ${once.right.answer.body}`
    }
    if (first !== undefined) broken(`ran again after ${first.entryId}`)
    const exit = once.right.exit
    if (Exit.isFailure(exit)) return "err ran and failed"
    partner.keyed.set(key, { amountMinor, entryId: exit.value.entry.id })
    return `keyed ran ${exit.value.entry.id} total=${exit.value.totals.totalMinor}`
  })
}

/** A bonus that expires within minutes to days, with a priority; some never expire. */
const grantCredit: Operation = ({ rng, partner }) =>
  outcome(
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const ledger = yield* Ledger.Ledger
      const expiresAt = rng.chance(0.2) ? undefined : now + rng.int(60, 3 * 86_400) * 1000
      const priority = rng.chance(0.3) ? undefined : rng.int(0, 100)
      return yield* ledger.credit(partner.id, {
        kind: "bonus",
        amountMinor: franks(rng, 3_000),
        grant: { expiresAt, priority }
      })
    }),
    (r) => `grant ${r.grant?.priority} ${r.grant?.expiresAt} total=${r.totals.totalMinor}`
  )

/** A balance alert at a threshold near the balance; or one deleted. */
const alert: Operation = ({ rng, partner }) =>
  Effect.flatMap(Ledger.Ledger, (ledger) => {
    if (partner.alerts.length > 0 && rng.chance(0.25)) {
      const id = rng.pick(partner.alerts)
      partner.alerts.splice(partner.alerts.indexOf(id), 1)
      return outcome(ledger.deleteAlert(partner.id, id), () => "alert deleted")
    }
    return outcome(ledger.createAlert(partner.id, franks(rng, 20_000)), (a) => {
      partner.alerts.push(a.id)
      partner.alertStart.set(a.id, a.state)
      return `alert ${a.thresholdMinor} ${a.state}`
    })
  })

const reserve: Operation = ({ rng, world, partner }) => {
  const taskId = rng.chance(0.1) && partner.holds.length > 0 ? rng.pick(partner.holds) : fresh(world, "hold")
  if (!partner.holds.includes(taskId)) partner.holds.push(taskId)
  return outcome(
    Effect.flatMap(Ledger.Ledger, (l) =>
      l.reserve(partner.id, { taskId: testTask(taskId), amountMinor: franks(rng, 5_000) })
    ),
    (r) => `reserve ${taskId} replayed=${r.replayed} reserved=${r.totals.reservedMinor}`
  )
}

/** Confirms at, below or (refused) above the hold; repeated and late settlements included. */
const confirm: Operation = ({ rng, partner }) => {
  if (partner.holds.length === 0) return Effect.succeed("skip")
  const taskId = rng.pick(partner.holds)
  return outcome(
    Effect.flatMap(Ledger.Ledger, (l) =>
      Effect.flatMap(l.hold(partner.id, testTask(taskId)), (hold) => {
        const reserved = hold?.reservedMinor ?? 100
        const share = rng.weighted({ all: 3, some: 4, above: 1, zero: 1 })
        const amount =
          share === "all"
            ? reserved
            : share === "some"
              ? rng.int(1, reserved)
              : share === "zero"
                ? 0
                : reserved + rng.int(1, 1000)
        return l.confirm(partner.id, { taskId: testTask(taskId), amountMinor: amount })
      })
    ),
    (r) => `confirm ${taskId} replayed=${r.replayed} charged=${r.hold.chargedMinor} used=${r.totals.usedMinor}`
  )
}

const refund: Operation = ({ rng, partner }) => {
  if (partner.holds.length === 0) return Effect.succeed("skip")
  const taskId = rng.pick(partner.holds)
  return outcome(
    Effect.flatMap(Ledger.Ledger, (l) => l.refund(partner.id, { taskId: testTask(taskId) })),
    (r) => `refund ${taskId} replayed=${r.replayed} reserved=${r.totals.reservedMinor}`
  )
}

/** A confirm and a refund of the same hold at once: exactly one may settle it. */
const racingSettlements: Operation = ({ rng, partner }) => {
  if (partner.holds.length === 0) return Effect.succeed("skip")
  const taskId = rng.pick(partner.holds)
  return Effect.map(
    both(
      outcome(
        Effect.flatMap(Ledger.Ledger, (l) => l.confirm(partner.id, { taskId: testTask(taskId), amountMinor: 1 })),
        (r) => `confirm ${r.replayed}`
      ),
      outcome(
        Effect.flatMap(Ledger.Ledger, (l) => l.refund(partner.id, { taskId: testTask(taskId) })),
        (r) => `refund ${r.replayed}`
      )
    ),
    (r) => `${taskId} ${r}`
  )
}

const launch: Operation = ({ rng, partner }) => {
  const key = rng.chance(0.3) ? `idem-${rng.int(1, 5)}` : undefined
  const prompt = rng.pick(["Say hi", "Write a haiku about ledgers", "Summarise the spec"])
  return outcome(
    Effect.flatMap(Tasks.Tasks, (t) => t.launch(partner.id, { modelId: "gpt-5-mini", prompt }, key)),
    (r) => {
      if (!partner.tasks.includes(r.task.id)) partner.tasks.push(r.task.id)
      return `launch created=${r.created} reserved=${r.task.reservedMinor}`
    }
  )
}

/** Provider reports: success at or below the reservation, failure, repeated, reordered, racing. */
const report: Operation = ({ rng, partner }) => {
  if (partner.tasks.length === 0) return Effect.succeed("skip")
  const taskId = rng.pick(partner.tasks)
  const one = () => {
    const kind = rng.weighted({ started: 1, succeeded: 4, failed: 2 })
    const costMinor = rng.chance(0.3) ? undefined : rng.int(0, 2_000)
    const outcomeOf =
      kind === "started"
        ? ({ _tag: "Started" } as const)
        : kind === "failed"
          ? ({ _tag: "Failed", failure: { code: "PROVIDER_ERROR", message: "simulated" } } as const)
          : ({
              _tag: "Succeeded",
              costMinor,
              output: { _tag: "Content", mimeType: "text/plain", bytes: new TextEncoder().encode("ok"), text: "ok" }
            } as const)
    return outcome(
      Effect.flatMap(Tasks.Tasks, (t) => t.report(partner.id, taskId, outcomeOf)),
      (r) =>
        `report ${kind} changed=${r.changed} late=${r.late} status=${r.task.status} cost=${r.task.costMinor} ${r.task.failure?.code ?? ""}`.trimEnd()
    )
  }
  return rng.chance(0.2) ? both(one(), one()) : one()
}

const paymentLink: Operation = ({ rng, partner }) => {
  const idempotencyKey = `pay-${rng.int(1, 8)}`
  const amountRub = rng.chance(0.8) ? 500 * rng.int(1, 4) : rng.int(1, 100_000)
  return outcome(
    Effect.flatMap(Payments.Payments, (p) =>
      p.createLink(partner.id, { amountRub, idempotencyKey, description: undefined })
    ),
    (r) => {
      if (!partner.payments.some((x) => x.id === r.payment.id))
        partner.payments.push({
          id: r.payment.id,
          providerPaymentId: r.payment.providerPaymentId ?? "",
          amountRub: r.payment.amountRub
        })
      return `link replayed=${r.replayed} amount=${r.payment.amountRub}`
    }
  )
}

/** Acquirer notifications: duplicated, reordered and concurrent; now and then the wrong amount. */
const paymentNotice: Operation = ({ rng, partner }) => {
  if (partner.payments.length === 0) return Effect.succeed("skip")
  const payment = rng.pick(partner.payments)
  const one = () => {
    const status = rng.weighted<Payments.PaymentStatus>({
      authorized: 2,
      confirmed: 5,
      canceled: 1,
      rejected: 1,
      failed: 1,
      pending: 0
    })
    const amountRub = rng.chance(0.05) ? payment.amountRub + 1 : payment.amountRub
    const raw = SandboxNotification.encode(SANDBOX_SECRET, {
      orderId: payment.id,
      paymentId: payment.providerPaymentId,
      status,
      amountRub
    })
    return outcome(
      Effect.flatMap(Payments.Payments, (p) => p.receiveNotification(raw)),
      (r) => `notice ${status} -> ${r.payment.status} credited=${r.transactionId !== null}`
    )
  }
  return rng.chance(0.3) ? both(one(), one()) : one()
}

const profile = (partner: PartnerModel) => ({
  companyName: `ООО «Симуляция ${partner.index}»`,
  inn: "7707083893",
  kpp: "773601001",
  ogrn: "1027700132195",
  legalAddress: "117997, г. Москва, ул. Вавилова, д. 19",
  email: "buh@simulation.example",
  expectedProfileRevision: partner.profileRevision
})

const invoiceCreate: Operation = ({ rng, partner }) =>
  Effect.gen(function* () {
    const invoices = yield* Invoices.Invoices
    if (partner.profileRevision === 0 || rng.chance(0.1)) {
      const saved = yield* Effect.either(invoices.saveProfile(partner.id, profile(partner)))
      if (Either.isRight(saved)) partner.profileRevision = saved.right.revision
    }
    const revision = rng.chance(0.1) ? partner.profileRevision + 1 : partner.profileRevision
    return yield* outcome(
      invoices.create(partner.id, { amountRub: rng.int(1, 100_000), expectedProfileRevision: revision }),
      (i) => {
        partner.invoices.push(i.id)
        return `invoice ${i.status} ${i.amountRub}`
      }
    )
  })

/** The bank's reports: paid (often twice at once), canceled, expired, in any order. */
const invoiceStatus: Operation = ({ rng, partner }) => {
  if (partner.invoices.length === 0) return Effect.succeed("skip")
  const id = rng.pick(partner.invoices)
  const one = () => {
    const status = rng.weighted({ paid: 5, canceled: 1, expired: 1, issued: 1 })
    return outcome(
      Effect.flatMap(Invoices.Invoices, (i) => i.applyBankStatus(partner.id, id, status)),
      (i) => `bank ${status} -> ${i.status}`
    )
  }
  return rng.chance(0.4) ? both(one(), one()) : one()
}

const endpointCreate: Operation = ({ rng, world, partner }) => {
  const url = `https://p${partner.index}-${fresh(world, "e")}.receiver.test/hook`
  const eventTypes = rng.chance(0.6)
    ? undefined
    : Events.allEventTypes.filter(() => rng.chance(0.5)).concat(["billing.settled"])
  return outcome(
    Effect.flatMap(Webhooks.Webhooks, (w) => w.createEndpoint(partner.id, { url, eventTypes })),
    (e) => {
      partner.endpoints.push({ id: e.id, url, eventTypes: e.eventTypes, active: true, deleted: false })
      return `endpoint ${e.eventTypes === null ? "all" : e.eventTypes.length}`
    }
  )
}

const liveEndpoint = (rng: Prng, partner: PartnerModel) => {
  const live = partner.endpoints.filter((e) => !e.deleted)
  return live.length === 0 ? undefined : rng.pick(live)
}

const endpointToggle: Operation = ({ rng, partner }) => {
  const e = liveEndpoint(rng, partner)
  if (e === undefined) return Effect.succeed("skip")
  const active = !e.active
  return outcome(
    Effect.flatMap(Webhooks.Webhooks, (w) => w.updateEndpoint(partner.id, e.id, { active })),
    (r) => {
      e.active = r.active
      return `endpoint active=${r.active}`
    }
  )
}

const endpointDelete: Operation = ({ rng, partner }) => {
  const e = liveEndpoint(rng, partner)
  if (e === undefined) return Effect.succeed("skip")
  return outcome(
    Effect.flatMap(Webhooks.Webhooks, (w) => w.deleteEndpoint(partner.id, e.id)),
    () => {
      e.deleted = true
      return "endpoint deleted"
    }
  )
}

const endpointRotate: Operation = ({ rng, partner }) => {
  const e = liveEndpoint(rng, partner)
  if (e === undefined) return Effect.succeed("skip")
  return outcome(
    Effect.flatMap(Webhooks.Webhooks, (w) => w.rotateSecret(partner.id, e.id)),
    () => "rotated"
  )
}

const sendTest: Operation = ({ rng, partner }) => {
  const e = liveEndpoint(rng, partner)
  if (e === undefined) return Effect.succeed("skip")
  return outcome(
    Effect.flatMap(Webhooks.Webhooks, (w) => w.sendTest(partner.id, e.id)),
    (r) => `test deliveries=${r.deliveries}`
  )
}

/** Replays a delivery picked in an order both store kinds share (event id, then endpoint). */
const replay: Operation = ({ rng, world, partner }) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks.Webhooks
    const page = yield* Effect.orDie(webhooks.listDeliveries(partner.id, {}, 100, undefined))
    if (page.deliveries.length === 0) return "skip"
    const sorted = [...page.deliveries].sort((a, b) =>
      a.eventId === b.eventId ? a.endpointId.localeCompare(b.endpointId) : a.eventId.localeCompare(b.eventId)
    )
    const d = rng.pick(sorted)
    return yield* outcome(webhooks.replay(partner.id, d.id), (r) => {
      const k = `${r.endpointId} ${r.eventId}`
      world.replays.set(k, (world.replays.get(k) ?? 0) + 1)
      return `replayed ${d.status} -> ${r.status}`
    })
  })

const keyIssue: Operation = ({ rng, partner }) => {
  const scopes = rng.chance(0.5) ? undefined : [rng.pick(["billing:read", "webhooks:manage", "media:run"])]
  return outcome(
    Effect.flatMap(Access.Access, (a) => a.issueKey(partner.id, { label: "simulation", scopes })),
    (k) => {
      partner.keys.push({ id: k.view.id, raw: k.raw, revoked: false })
      return `key ${k.view.access}`
    }
  )
}

const keyRevoke: Operation = ({ rng, partner }) => {
  if (partner.keys.length === 0) return Effect.succeed("skip")
  const key = rng.pick(partner.keys)
  return Effect.map(
    Effect.flatMap(Access.Access, (a) => Effect.orDie(a.revokeKey(partner.id, key.id, "simulation"))),
    (changed) => {
      key.revoked = true
      return `revoked ${changed}`
    }
  )
}

/** Time passes: the worker runs at every instant something falls due. */
const advance: Operation = ({ rng }) => {
  const seconds = rng.weighted({ s: 6, m: 3, h: 1 })
  const by = seconds === "s" ? rng.int(1, 59) : seconds === "m" ? rng.int(60, 1800) : rng.int(3600, 7 * 3600)
  return Effect.as(Effect.orDie(advanceClock(by * 1000)), `advance ${by}`)
}

/** The clock jumps past the task hold TTL at once (a provider silent for hours), then what is due runs. */
const expiryJump: Operation = ({ rng }) => {
  const by = SIMULATION_HOLD_TTL_MS / 1000 + rng.int(0, 3600)
  return Effect.as(Effect.orDie(jump(by * 1000)), `jump past ttl ${by}`)
}

/**
 * A provider's success and the expiry sweep racing for a task at its expiry instant: the task
 * expires exactly once (the report is late by then), whichever takes the lock first. The summary
 * is the end state, which does not depend on who won.
 */
const racingExpiry: Operation = ({ rng, partner }) =>
  Effect.gen(function* () {
    const tasks = yield* Tasks.Tasks
    const open: Array<Tasks.Task> = []
    for (const id of partner.tasks) {
      const task = yield* Effect.orDie(tasks.get(partner.id, id))
      if (task.status === "queued" || task.status === "running") open.push(task)
    }
    if (open.length === 0) return "skip"
    const task = rng.pick(open)
    yield* TestClock.setTime(Math.max(task.expiresAt, yield* Clock.currentTimeMillis))
    const expiry = yield* Tasks.TaskExpiry
    const success: Tasks.TaskOutcome = {
      _tag: "Succeeded",
      costMinor: rng.int(0, 2_000),
      output: { _tag: "Content", mimeType: "text/plain", bytes: new TextEncoder().encode("late"), text: "late" }
    }
    yield* Effect.all([Effect.either(tasks.report(partner.id, task.id, success)), Effect.either(expiry.sweep)], {
      concurrency: "unbounded"
    })
    const after = yield* Effect.orDie(tasks.get(partner.id, task.id))
    return `race expiry status=${after.status} ${after.failure?.code ?? ""} late=${after.lateReport?.outcome ?? "none"}`
  })

/** The clock jumps without the worker running on the way (a suspended VM, an NTP step). */
const clockJump: Operation = ({ rng }) => {
  const by = rng.int(600, 36 * 3600)
  return Effect.as(Effect.orDie(jump(by * 1000)), `jump ${by}`)
}

const mood: Operation = ({ rng, partner }) => {
  const e = liveEndpoint(rng, partner)
  if (e === undefined) return Effect.succeed("skip")
  const m = rng.weighted<Mood>({ healthy: 3, flaky: 3, down: 1, crashing: 1 })
  return Effect.map(Receivers, (r) => {
    r.setMood(e.url, m)
    return `mood ${m}`
  })
}

/** The next ledger transaction fails (and rolls back); the operation after it is a money movement. */
const storeFault: Operation = (ctx) =>
  Effect.flatMap(StoreProbe, (probe) => {
    probe.failNextTransaction = true
    const op = ctx.rng.pick([credit, reserve, confirm, refund, keyedCredit])
    return Effect.map(
      Effect.ensuring(
        op(ctx),
        Effect.sync(() => {
          probe.failNextTransaction = false
        })
      ),
      (r) => `fault ${r}`
    )
  })

export const operations = {
  credit: [credit, 8],
  keyedCredit: [keyedCredit, 3],
  grantCredit: [grantCredit, 4],
  alert: [alert, 2],
  reserve: [reserve, 8],
  confirm: [confirm, 6],
  refund: [refund, 4],
  racingSettlements: [racingSettlements, 2],
  launch: [launch, 6],
  report: [report, 7],
  paymentLink: [paymentLink, 4],
  paymentNotice: [paymentNotice, 6],
  invoiceCreate: [invoiceCreate, 3],
  invoiceStatus: [invoiceStatus, 5],
  endpointCreate: [endpointCreate, 3],
  endpointToggle: [endpointToggle, 3],
  endpointDelete: [endpointDelete, 1],
  endpointRotate: [endpointRotate, 2],
  sendTest: [sendTest, 3],
  replay: [replay, 4],
  keyIssue: [keyIssue, 2],
  keyRevoke: [keyRevoke, 2],
  advance: [advance, 12],
  clockJump: [clockJump, 1],
  expiryJump: [expiryJump, 1],
  racingExpiry: [racingExpiry, 2],
  mood: [mood, 4],
  storeFault: [storeFault, 3]
} satisfies Record<string, readonly [Operation, number]>

export type OperationName = keyof typeof operations
export const operationWeights = Object.fromEntries(Object.entries(operations).map(([k, [, w]]) => [k, w])) as Record<
  OperationName,
  number
>
