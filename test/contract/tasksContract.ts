/**
 * The generation-task contract: the same cases against every store set (memory, PGlite,
 * Postgres), with the ledger and the webhook outbox on the same stores as in the host. It covers
 * launch (pricing, inputs, reservation in one transaction, idempotency under concurrency),
 * settlement exactly once (success, failure, repeated and racing reports), the events of each
 * outcome, the kept result bytes and the listing. A task store is done when it passes all of them.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Events, Ids, Ledger, Money, Pricing, Tariffs, Tasks, Webhooks } from "@frank/core"
import {
  type EngineStores,
  ManualGeneration,
  ManualGenerationProvider,
  MemoryStoredFileLookup,
  OwnedFiles,
  Simulation,
  SimulationEngine,
  testPartner
} from "@frank/core/testing"
import { Effect, Either, Layer, Option, TestClock } from "effect"
import type { TaskStore } from "@frank/core/stores"

export const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)
const BASE_URL = "https://frank.test"

/** The expiry sweep of the contract: small batches, so a sweep of a few dozen tasks takes several. */
export const contractExpiry = { sweepIntervalMs: 60_000, batchSize: 7, concurrency: 4 }

export const tasksEngine = (stores: Layer.Layer<EngineStores | TaskStore, unknown>) =>
  // The kit's Simulation again, over the tasks: `advance` then runs the expiry sweep too (fresh:
  // the layer is memoized by reference, and SimulationEngine below built it without tasks).
  Layer.fresh(Simulation.layer).pipe(
    Layer.provideMerge(Tasks.TaskExpiry.layer(contractExpiry)),
    Layer.provideMerge(tasksServices(stores))
  )

const tasksServices = (stores: Layer.Layer<EngineStores | TaskStore, unknown>) =>
  Tasks.Tasks.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig),
        MemoryStoredFileLookup,
        ManualGenerationProvider,
        Tasks.TaskSettings.layer({ publicBaseUrl: BASE_URL }),
        Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog)
      )
    ),
    // One store set (one database) under both: the layer is built once and shared.
    Layer.provideMerge(SimulationEngine({ stores })),
    Layer.provideMerge(stores)
  )

export const image: Pricing.EstimateRequest = { modelId: "gpt-image-1", prompt: "a lighthouse at dusk", quality: "low" }

/**
 * A new partner with `franks` credited (above the low-balance threshold, so no billing.low_balance
 * mixes into the events) and a webhook endpoint subscribed to every event.
 */
export const setup = (franks = 5000) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const partnerId = testPartner(`p_${uuid()}`)
    if (franks > 0) yield* (yield* Ledger.Ledger).credit(partnerId, { kind: "bonus", amountMinor: franks * 100 })
    yield* (yield* Webhooks.Webhooks).createEndpoint(partnerId, {
      url: `https://receiver-${uuid().slice(0, 8)}.example/hook`
    })
    return { partnerId, tasks: yield* Tasks.Tasks, ledger: yield* Ledger.Ledger }
  })

/** The quote of a request at the base tariff, in minor units. */
export const quoteMinor = (request: Pricing.EstimateRequest) =>
  Effect.map(Pricing.Pricing, (p) => Money.franksToMinor(Either.getOrThrow(p.estimate(request, 0)).totalFranks)!)

/** Event types written for the partner, sorted (events of one transaction share their time, so their order is not defined). */
export const eventTypes = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Webhooks.Webhooks, (w) =>
    Effect.map(w.listDeliveries(partnerId, {}, 100, undefined), (p) => p.deliveries.map((d) => d.eventType).sort())
  )

export const deliveriesOf = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Webhooks.Webhooks, (w) =>
    Effect.map(w.listDeliveries(partnerId, {}, 100, undefined), (p) => p.deliveries)
  )

/** The ledger rows of one task, oldest first, as `type:kind:amount`. */
export const taskRows = (partnerId: Ids.PartnerId, taskId: string) =>
  Effect.flatMap(Ledger.Ledger, (l) =>
    Effect.map(l.listEntries(partnerId, {}, 0, 100), (page) =>
      page.items
        .filter((e) => e.taskId === taskId)
        .reverse()
        .map((e) => `${e.type}:${e.kind}:${e.amountMinor}`)
    )
  )

export const png: Tasks.TaskOutcome = {
  _tag: "Succeeded",
  output: { _tag: "Content", mimeType: "image/png", bytes: Uint8Array.of(0x89, 0x50, 0x4e, 0x47) }
}
export const withCost = (costMinor: number): Tasks.TaskOutcome => ({ ...png, costMinor }) as Tasks.TaskOutcome
export const failure: Tasks.TaskOutcome = {
  _tag: "Failed",
  failure: { code: "PROVIDER_ERROR", message: "the model crashed" }
}

export const tasksContract = (engine: string, stores: Layer.Layer<EngineStores | TaskStore, unknown>) => {
  layer(tasksEngine(stores), { timeout: 120_000 })(`generation tasks on ${engine}`, (it) => {
    it.effect(
      "launch prices like the estimate, reserves in one step with creating the task, and hands it to the provider",
      () =>
        Effect.gen(function* () {
          const { partnerId, tasks, ledger } = yield* setup()
          const expected = yield* quoteMinor(image)
          const { task, created } = yield* tasks.launch(partnerId, image)
          expect(created).toBe(true)
          expect(task).toMatchObject({
            partnerId,
            status: "queued",
            modelId: "gpt-image-1",
            family: "image",
            operation: "text-to-image",
            mode: "standard",
            resolution: "1024x1024",
            quality: "low",
            request: image,
            inputs: [],
            reservedMinor: expected,
            costMinor: null,
            idempotencyKey: null,
            result: null,
            failure: null,
            createdAt: T0,
            expiresAt: T0 + 86_400_000,
            lateReport: null
          })
          expect(yield* tasks.get(partnerId, task.id)).toEqual(task)
          expect((yield* ledger.balance(partnerId)).reserved).toBe(expected / 100)
          expect(yield* ledger.hold(partnerId, task.id)).toMatchObject({
            status: "open",
            reservedMinor: expected,
            expiresAt: task.expiresAt
          })
          expect(yield* taskRows(partnerId, task.id)).toEqual([`reservation:task_hold:${expected}`])
          expect((yield* (yield* ManualGeneration).submitted).map((t) => t.id)).toContain(task.id)
        })
    )

    it.effect("insufficient funds: 402 INSUFFICIENT_FUNDS and neither a task nor a reservation exists", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup(0)
        const error = yield* Effect.flip(tasks.launch(partnerId, image))
        expect(error).toMatchObject({ _tag: "InsufficientFunds", code: "INSUFFICIENT_FUNDS" })
        expect((yield* tasks.list(partnerId, {}, 0, 10)).total).toBe(0)
        expect(yield* ledger.balance(partnerId)).toMatchObject({ reserved: 0, total: 0 })
        // The same launch with an Idempotency-Key after a top-up is a fresh launch (nothing was kept).
        yield* ledger.credit(partnerId, { kind: "bonus", amountMinor: 100_000 })
        const launched = yield* tasks.launch(partnerId, image, "k-after-402")
        expect(launched.created).toBe(true)
      })
    )

    it.effect("requests that do not fit: every problem at once, nothing reserved", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup()
        const unknown = yield* Effect.flip(tasks.launch(partnerId, { modelId: "no-such-model" }))
        expect(unknown).toMatchObject({ _tag: "TaskRequestInvalid", code: "PRICING_MODEL_UNKNOWN", status: 400 })
        const foreign = uuid()
        yield* (yield* OwnedFiles).add(testPartner(`p_${uuid()}`), foreign)
        const missing = uuid()
        const bad = yield* Effect.flip(
          tasks.launch(partnerId, {
            modelId: "veo-3",
            prompt: "p",
            referenceAudioCount: 2,
            inputs: [
              { storedFileId: foreign, role: "referenceImage" },
              { storedFileId: missing, role: "referenceImage" }
            ]
          })
        )
        expect(bad).toMatchObject({ _tag: "TaskRequestInvalid", code: "TASK_INPUT_INVALID" })
        expect(bad._tag === "TaskRequestInvalid" ? bad.messages : []).toEqual([
          'referenceAudioCount: 2 does not match the 0 input(s) with role "referenceAudio"',
          `inputs: stored file ${foreign} not found`,
          `inputs: stored file ${missing} not found`
        ])
        // Pricing problems and input problems come together; the code is pricing's.
        const both = yield* Effect.flip(
          tasks.launch(partnerId, { modelId: "gpt-image-1", inputs: [{ storedFileId: missing, role: "image" }] })
        )
        expect(both).toMatchObject({ code: "ESTIMATE_INVALID" })
        expect(both._tag === "TaskRequestInvalid" ? both.messages.some((m) => m.includes(missing)) : false).toBe(true)
        expect((yield* tasks.list(partnerId, {}, 0, 10)).total).toBe(0)
        expect((yield* ledger.balance(partnerId)).reserved).toBe(0)
      })
    )

    it.effect("owned inputs fill the estimate counts and are priced", () =>
      Effect.gen(function* () {
        const { partnerId, tasks } = yield* setup()
        const owned = yield* OwnedFiles
        const [a, b] = [uuid(), uuid()]
        yield* owned.add(partnerId, a)
        yield* owned.add(partnerId, b)
        const { task } = yield* tasks.launch(partnerId, {
          modelId: "veo-3",
          prompt: "a storm",
          inputs: [
            { storedFileId: a, role: "referenceImage" },
            { storedFileId: b, role: "referenceImage" }
          ]
        })
        expect(task.request).toEqual({ modelId: "veo-3", prompt: "a storm", referenceImageCount: 2 })
        expect(task.inputs).toEqual([
          { storedFileId: a, role: "referenceImage" },
          { storedFileId: b, role: "referenceImage" }
        ])
        expect(task.reservedMinor).toBe(
          yield* quoteMinor({ modelId: "veo-3", prompt: "a storm", referenceImageCount: 2 })
        )
        expect(task.reservedMinor).toBeGreaterThan(yield* quoteMinor({ modelId: "veo-3", prompt: "a storm" }))
      })
    )

    it.effect(
      "success charges the actual cost, releases the rest and emits billing.settled and task.succeeded with derived ids",
      () =>
        Effect.gen(function* () {
          const { partnerId, tasks, ledger } = yield* setup()
          const { task } = yield* tasks.launch(partnerId, image)
          const provider = yield* ManualGeneration
          yield* provider.report(task.id, { _tag: "Started" })
          expect((yield* tasks.get(partnerId, task.id)).status).toBe("running")
          yield* TestClock.adjust("3 seconds")
          const cost = task.reservedMinor - 7
          yield* provider.report(task.id, withCost(cost))
          const done = yield* tasks.get(partnerId, task.id)
          expect(done).toMatchObject({
            status: "succeeded",
            costMinor: cost,
            startedAt: T0,
            finishedAt: T0 + 3000,
            result: { url: `${BASE_URL}/v1/tasks/${task.id}/result`, mimeType: "image/png", sizeBytes: 4, text: null }
          })
          expect(yield* tasks.result(partnerId, task.id)).toEqual({
            mimeType: "image/png",
            bytes: Uint8Array.of(0x89, 0x50, 0x4e, 0x47)
          })
          expect(yield* ledger.balance(partnerId)).toMatchObject({
            reserved: 0,
            used: cost / 100,
            available: (500_000 - cost) / 100
          })
          expect(yield* taskRows(partnerId, task.id)).toEqual([
            `reservation:task_hold:${task.reservedMinor}`,
            `confirm:task_charge:${cost}`,
            "refund:task_release:7"
          ])
          const deliveries = yield* deliveriesOf(partnerId)
          const settled = deliveries.find((d) => d.eventType === "billing.settled")
          const succeeded = deliveries.find((d) => d.eventType === "task.succeeded")
          expect(succeeded?.eventId).toBe(Events.sourceEventId(partnerId, "task.succeeded", `${task.id}:succeeded`))
          const hold = yield* ledger.hold(partnerId, task.id)
          expect(settled?.eventId).toBe(Events.sourceEventId(partnerId, "billing.settled", hold!.settlementEntryId!))
          expect(yield* eventTypes(partnerId)).toEqual(["billing.settled", "task.succeeded"])
        })
    )

    it.effect("failure refunds the reservation and emits task.failed, billing.refunded and task.refunded", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup()
        const { task } = yield* tasks.launch(partnerId, image)
        const reported = yield* tasks.report(partnerId, task.id, failure)
        expect(reported.changed).toBe(true)
        expect(reported.task).toMatchObject({
          status: "failed",
          failure: { code: "PROVIDER_ERROR", message: "the model crashed" },
          costMinor: null,
          finishedAt: T0
        })
        expect(yield* ledger.balance(partnerId)).toMatchObject({ reserved: 0, used: 0, available: 5000 })
        expect(yield* taskRows(partnerId, task.id)).toEqual([
          `reservation:task_hold:${task.reservedMinor}`,
          `refund:task_refund:${task.reservedMinor}`
        ])
        expect(yield* eventTypes(partnerId)).toEqual(["billing.refunded", "task.failed", "task.refunded"])
        const refunded = (yield* deliveriesOf(partnerId)).find((d) => d.eventType === "task.refunded")
        expect(refunded?.eventId).toBe(Events.sourceEventId(partnerId, "task.refunded", `${task.id}:failed`))
        expect(yield* Effect.flip(tasks.result(partnerId, task.id))).toMatchObject({
          _tag: "TaskResultUnavailable",
          code: "TASK_RESULT_NOT_AVAILABLE"
        })
      })
    )

    it.effect("a repeated or contradicting report changes nothing: one settlement, one set of events", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup()
        const { task } = yield* tasks.launch(partnerId, image)
        expect((yield* tasks.report(partnerId, task.id, withCost(100))).changed).toBe(true)
        const before = yield* ledger.balance(partnerId)
        for (const again of [withCost(100), withCost(50), failure, { _tag: "Started" } as const]) {
          const r = yield* tasks.report(partnerId, task.id, again)
          expect(r.changed).toBe(false)
          expect(r.task).toMatchObject({ status: "succeeded", costMinor: 100 })
        }
        expect(yield* ledger.balance(partnerId)).toEqual(before)
        expect(yield* taskRows(partnerId, task.id)).toHaveLength(3)
        expect(yield* eventTypes(partnerId)).toEqual(["billing.settled", "task.succeeded"])
      })
    )

    it.effect("racing reports of success and failure settle exactly once", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup()
        const { task } = yield* tasks.launch(partnerId, image)
        const reports = Array.from({ length: 10 }, (_, i) =>
          tasks.report(partnerId, task.id, i % 2 === 0 ? withCost(123) : failure)
        )
        const results = yield* Effect.all(reports, { concurrency: "unbounded" })
        expect(results.filter((r) => r.changed)).toHaveLength(1)
        const final = yield* tasks.get(partnerId, task.id)
        const hold = yield* ledger.hold(partnerId, task.id)
        expect(hold?.status).toBe(final.status === "succeeded" ? "confirmed" : "refunded")
        const types = yield* eventTypes(partnerId)
        expect(types).toEqual(
          final.status === "succeeded"
            ? ["billing.settled", "task.succeeded"]
            : ["billing.refunded", "task.failed", "task.refunded"]
        )
        expect((yield* ledger.balance(partnerId)).reserved).toBe(0)
      })
    )

    it.effect(
      "Idempotency-Key: a retry answers the same task and reserves once, also under 10 concurrent retries",
      () =>
        Effect.gen(function* () {
          const { partnerId, tasks, ledger } = yield* setup()
          const first = yield* tasks.launch(partnerId, image, "order-42")
          const again = yield* tasks.launch(partnerId, { ...image }, "order-42")
          expect(again).toEqual({ task: first.task, created: false })
          expect(first.task.idempotencyKey).toBe("order-42")

          const concurrent = yield* Effect.all(
            Array.from({ length: 10 }, () => tasks.launch(partnerId, image, "order-43")),
            { concurrency: "unbounded" }
          )
          expect(concurrent.filter((l) => l.created)).toHaveLength(1)
          expect(new Set(concurrent.map((l) => l.task.id)).size).toBe(1)

          expect((yield* tasks.list(partnerId, {}, 0, 50)).total).toBe(2)
          expect((yield* ledger.balance(partnerId)).reserved).toBe((2 * first.task.reservedMinor) / 100)
          const reservations = (yield* ledger.listEntries(partnerId, { type: "reservation" }, 0, 50)).items
          expect(reservations).toHaveLength(2)

          // The same key for another request is a conflict; another partner's key space is its own.
          const conflict = yield* Effect.flip(
            tasks.launch(partnerId, { ...image, prompt: "something else" }, "order-42")
          )
          expect(conflict).toMatchObject({ _tag: "IdempotencyKeyReused", code: "IDEMPOTENCY_KEY_REUSED", status: 409 })
          const other = yield* setup()
          const theirs = yield* other.tasks.launch(other.partnerId, image, "order-42")
          expect(theirs.created).toBe(true)
          expect(theirs.task.id).not.toBe(first.task.id)
        })
    )

    it.effect("a provider that refuses the task fails it at once and refunds", () =>
      Effect.gen(function* () {
        const { partnerId, tasks, ledger } = yield* setup()
        yield* (yield* ManualGeneration).rejectNext("PROVIDER_UNAVAILABLE", "no capacity")
        const { task, created } = yield* tasks.launch(partnerId, image)
        expect(created).toBe(true)
        expect(task).toMatchObject({
          status: "failed",
          failure: { code: "PROVIDER_UNAVAILABLE", message: "no capacity" }
        })
        expect((yield* ledger.balance(partnerId)).reserved).toBe(0)
        expect(yield* eventTypes(partnerId)).toEqual(["billing.refunded", "task.failed", "task.refunded"])
      })
    )

    it.effect(
      "listing: newest first with page totals and a status filter; foreign and malformed ids are not found",
      () =>
        Effect.gen(function* () {
          const { partnerId, tasks } = yield* setup()
          const ids: Ids.TaskId[] = []
          for (let i = 0; i < 5; i++) {
            ids.push((yield* tasks.launch(partnerId, image)).task.id)
            yield* TestClock.adjust("1 second")
          }
          yield* tasks.report(partnerId, ids[1]!, failure)
          const page = yield* tasks.list(partnerId, {}, 0, 2)
          expect(page.total).toBe(5)
          expect(page.items.map((t) => t.id)).toEqual([ids[4], ids[3]])
          expect((yield* tasks.list(partnerId, {}, 4, 2)).items.map((t) => t.id)).toEqual([ids[0]])
          const failed = yield* tasks.list(partnerId, { status: "failed" }, 0, 10)
          expect(failed).toMatchObject({ total: 1, items: [{ id: ids[1], status: "failed" }] })

          const stranger = testPartner(`p_${uuid()}`)
          expect(yield* Effect.flip(tasks.get(stranger, ids[0]!))).toMatchObject({
            _tag: "TaskNotFound",
            code: "TASK_NOT_FOUND",
            status: 404
          })
          expect((yield* tasks.list(stranger, {}, 0, 10)).total).toBe(0)
          expect(yield* Effect.flip(tasks.report(stranger, ids[0]!, failure))).toMatchObject({ _tag: "TaskNotFound" })
          // A malformed id names no task: decoded at the edge, it never reaches the service.
          expect(Ids.parseId(Ids.TaskId)("not-a-uuid")).toEqual(Option.none())
          // The operator finds a task by its id alone.
          expect((yield* tasks.locate(ids[0]!)).partnerId).toBe(partnerId)
          expect(yield* Effect.flip(tasks.locate(Ids.TaskId.make(uuid())))).toMatchObject({ _tag: "TaskNotFound" })
        })
    )

    it.effect("a malformed outcome is refused before anything is written", () =>
      Effect.gen(function* () {
        const { partnerId, tasks } = yield* setup()
        const { task } = yield* tasks.launch(partnerId, image)
        expect(yield* Effect.flip(tasks.report(partnerId, task.id, withCost(-5)))).toMatchObject({
          _tag: "TaskOutcomeInvalid",
          code: "TASK_OUTCOME_INVALID"
        })
        expect((yield* tasks.get(partnerId, task.id)).status).toBe("queued")
      })
    )

    it.effect("a restarted host hands queued and running tasks to the provider again", () =>
      Effect.gen(function* () {
        const { partnerId, tasks } = yield* setup()
        const provider = yield* ManualGeneration
        const queued = (yield* tasks.launch(partnerId, image)).task
        const running = (yield* tasks.launch(partnerId, image)).task
        const finished = (yield* tasks.launch(partnerId, image)).task
        yield* provider.report(running.id, { _tag: "Started" })
        yield* provider.report(finished.id, failure)
        const before = (yield* provider.submitted).length
        const resumed = yield* tasks.resumeUnfinished
        const handed = (yield* provider.submitted).slice(before).map((t) => t.id)
        expect(resumed).toBe(handed.length)
        expect(handed).toContain(queued.id)
        expect(handed).toContain(running.id)
        expect(handed).not.toContain(finished.id)
      })
    )
  })
}
