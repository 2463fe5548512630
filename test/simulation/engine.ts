/**
 * The whole engine for one campaign seed, on memory stores or on SQL stores over a database the
 * caller built once (PGlite): ledger, outbox, delivery worker, tasks, top-ups, legal invoices and
 * access, assembled from the public layers as the host does, with deterministic ids per seed, the
 * simulated receivers, and two decorators the campaign needs: a store fault switch and a record
 * of every event the outbox wrote.
 */
import {
  MemoryAccessStores,
  MemorySandboxAcquirerStore,
  NodeSecrets,
  NodeWebhookSigner,
  SandboxAcquirer,
  SqlAccessStores,
  SqlInvoiceStores,
  SqlLedgerStore,
  SqlPaymentStore,
  SqlSandboxAcquirerStore,
  SqlTaskStore,
  SqlWebhookStore
} from "@frank/adapters"
import {
  Access,
  DeliveryWakeup,
  DeliveryWorker,
  defaultTariffConfig,
  EventStore,
  type EventTarget,
  Ids,
  HoldNotFound,
  Invoices,
  Ledger,
  type LedgerError,
  type Decision,
  type Snapshot,
  type TransactRequest,
  LedgerStore,
  Outbox,
  Payments,
  Pricing,
  sampleCatalog,
  StoreError,
  Tariffs,
  TariffStore,
  Tasks,
  TaskSettings,
  WebhookSettings,
  Webhooks,
  WebhookStore
} from "@frank/core"
import {
  ManualGenerationProvider,
  MemoryBank,
  MemoryInvoiceStores,
  MemoryLedgerStore,
  MemoryPaymentStore,
  MemoryStoredFileLookup,
  MemoryTaskStore,
  MemoryWebhookStore
} from "@frank/core/testing"
import type { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Layer, Redacted } from "effect"
import { ReceiversLive } from "./receiver.js"

export const SANDBOX_SECRET = Redacted.make("simulation-sandbox-secret")

/** One event the outbox wrote: the store's own count of the deliveries it created. */
export interface WrittenEvent {
  readonly partnerId: string
  readonly eventId: string
  readonly type: string
  readonly target: EventTarget
  readonly deliveries: number
  readonly at: number
  /** The body as sent (checked against the event catalog). */
  readonly payload: string
}

/**
 * The campaign's handle on the stores. `failNextTransaction` makes the next ledger transaction
 * fail: on SQL after its writes (inside the transaction, so it rolls back), on memory before them
 * (memory has no rollback). `written` collects outbox writes of the running operation until the
 * campaign keeps (operation succeeded) or drops them.
 */
export interface StoreProbeShape {
  failNextTransaction: boolean
  injected: number
  readonly written: Array<WrittenEvent>
}

export class StoreProbe extends Context.Tag("test/simulation/StoreProbe")<StoreProbe, StoreProbeShape>() {}

export type StoreKind = "memory" | "sql"

const injectedFault = () => new StoreError({ message: "simulated store failure" })

const probedLedgerStore = (kind: StoreKind) =>
  Layer.effect(
    LedgerStore,
    Effect.gen(function* () {
      const store = yield* LedgerStore
      const probe = yield* StoreProbe
      return {
        ...store,
        transact: <A>(
          request: TransactRequest,
          rule: (snap: Snapshot) => Either.Either<Decision<A>, LedgerError>,
          followUp?: (result: A) => Effect.Effect<void, StoreError>
        ): Effect.Effect<A, LedgerError | StoreError> => {
          if (!probe.failNextTransaction) return store.transact(request, rule, followUp)
          probe.failNextTransaction = false
          probe.injected++
          // Memory cannot roll back, so its failure comes where SQL's rollback leaves things: after
          // the rule decided (a refusal stays a refusal), before anything is applied.
          if (kind === "memory") {
            const decided = new HoldNotFound({ message: "simulated store failure", taskId: "" })
            return store
              .transact<A>(request, (snap) => Either.flatMap(rule(snap), () => Either.left(decided)))
              .pipe(
                Effect.catchIf(
                  (e) => e === decided,
                  () => Effect.fail(injectedFault())
                )
              )
          }
          return store.transact(request, rule, (result) =>
            Effect.zipRight(followUp === undefined ? Effect.void : followUp(result), Effect.fail(injectedFault()))
          )
        }
      } satisfies typeof store
    })
  )

const recordingEventStore = Layer.effect(
  EventStore,
  Effect.gen(function* () {
    const store = yield* EventStore
    const probe = yield* StoreProbe
    return {
      ...store,
      appendEvent: (event, target, now) =>
        Effect.tap(store.appendEvent(event, target, now), (deliveries) =>
          Effect.sync(() =>
            probe.written.push({
              partnerId: event.partnerId,
              eventId: event.id,
              type: event.type,
              target,
              deliveries,
              at: now,
              payload: event.payload
            })
          )
        )
    } satisfies typeof store
  })
)

const memoryStores = Layer.mergeAll(
  MemoryTaskStore,
  MemoryPaymentStore,
  MemorySandboxAcquirerStore,
  MemoryInvoiceStores,
  MemoryAccessStores
)

const sqlStores = Layer.mergeAll(
  SqlTaskStore,
  SqlPaymentStore,
  SqlSandboxAcquirerStore,
  SqlInvoiceStores,
  SqlAccessStores
)

/** The engine of one seed. `database` is the SQL client's context for `sql` (built once, shared by seeds). */
export const campaignEngine = (seed: number, kind: StoreKind, database?: Context.Context<SqlClient.SqlClient>) => {
  const sql = Layer.succeedContext(database as Context.Context<SqlClient.SqlClient>)
  const [ledgerAndOutbox, others] =
    kind === "memory"
      ? [Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore), memoryStores]
      : [Layer.mergeAll(SqlLedgerStore, SqlWebhookStore).pipe(Layer.provide(sql)), sqlStores.pipe(Layer.provide(sql))]
  const probe = Layer.sync(
    StoreProbe,
    (): StoreProbeShape => ({ failNextTransaction: false, injected: 0, written: [] })
  )
  // The stores the probes do not wrap pass through as they are (only these two: the wrapped
  // LedgerStore and EventStore must not be shadowed by the originals).
  const untouched = Layer.effectContext(
    Effect.map(Effect.all([WebhookStore, TariffStore]), ([webhooks, tariffs]) =>
      Context.make(WebhookStore, webhooks).pipe(Context.add(TariffStore, tariffs))
    )
  )
  const decorated = Layer.mergeAll(untouched, probedLedgerStore(kind), recordingEventStore).pipe(
    Layer.provide(ledgerAndOutbox)
  )
  const stores = Layer.mergeAll(decorated, others).pipe(Layer.provideMerge(probe))
  const base = Layer.mergeAll(
    Ids.layerDeterministic(`frank-campaign-${seed}`),
    // node:crypto as in the host: synchronous HMACs, no thread-pool hop per signature or key check.
    NodeSecrets(Redacted.make("simulation-pepper")),
    NodeWebhookSigner,
    DeliveryWakeup.layer,
    WebhookSettings.layer({ allowPrivateNetwork: true }),
    ReceiversLive(seed),
    Pricing.layerFromCatalog(sampleCatalog),
    MemoryStoredFileLookup,
    ManualGenerationProvider,
    TaskSettings.layer({ publicBaseUrl: "https://frank.test" })
  )
  const outside = Layer.mergeAll(
    Tariffs.layer(defaultTariffConfig),
    MemoryBank.layer,
    SandboxAcquirer.layer({ baseUrl: "https://frank.test", secret: SANDBOX_SECRET })
  )
  // One attempt at a time: the receivers' answers do not depend on order, but this keeps the
  // worker's writes in one order on both store kinds.
  const worker = DeliveryWorker.layer({
    concurrency: 1,
    batchSize: 16,
    leaseMs: 60_000,
    pollIntervalMs: 1_000,
    drainMs: 12_000,
    sweepIntervalMs: 1_000,
    // The world model does not model the endpoint-health rule (endpoints a day's clock jumps and
    // "down" receivers leave failing would be paused behind its back); its own contract covers it.
    disableFailing: false
  })
  const services = Layer.mergeAll(Tasks.layer, Payments.layer, Invoices.layer, Access.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(Ledger.layer, Webhooks.layer, worker)),
    Layer.provideMerge(Outbox.layer)
  )
  return services.pipe(Layer.provideMerge(outside), Layer.provideMerge(stores), Layer.provideMerge(base))
}
