/**
 * The whole engine for one campaign seed, on memory stores or on SQL stores over a database the
 * caller built once (PGlite): ledger, outbox, delivery worker, tasks, top-ups, legal invoices and
 * access, assembled from the public layers as the host does, with deterministic ids per seed, the
 * simulated receivers, and two decorators the campaign needs: a store fault switch and a record
 * of every event the outbox wrote.
 */
import {
  MemoryAccessStores,
  MemoryIdempotencyStore,
  MemorySandboxAcquirerStore,
  NodeSecrets,
  NodeWebhookSigner,
  SandboxAcquirer,
  SqlAccessStores,
  SqlIdempotencyStore,
  SqlInvoiceStores,
  SqlLedgerStore,
  SqlPaymentStore,
  SqlSandboxAcquirerStore,
  SqlTaskStore,
  SqlWebhookStore
} from "@frank/adapters"
import { Access, Errors, Events, Ids, Invoices, Ledger, Payments, Pricing, Tariffs, Tasks, Webhooks } from "@frank/core"
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
import {
  type Decision,
  DeliveryLog,
  DeliveryQueue,
  EndpointStore,
  EventStore,
  LedgerStore,
  type Snapshot,
  TariffStore,
  type TransactRequest,
  WebhookRetentionStore,
  type WebhookStores
} from "@frank/core/stores"

export const SANDBOX_SECRET = Redacted.make("simulation-sandbox-secret")

/** Task holds lapse two hours after launch here, so clock moves and jumps pass them often. */
export const SIMULATION_HOLD_TTL_MS = 2 * 3600 * 1000

/** The expiry sweep of the campaign: once a minute, small batches, one task at a time (one order on both store kinds). */
export const SIMULATION_EXPIRY = { sweepIntervalMs: 60_000, batchSize: 3, concurrency: 1 }

/** One event the outbox wrote: the store's own count of the deliveries it created. */
export interface WrittenEvent {
  readonly partnerId: string
  readonly eventId: string
  readonly type: string
  readonly target: Events.EventTarget
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

const injectedMarker = "simulated-store-failure"
const injectedFault = () => new Errors.StoreError({ message: "simulated store failure" })

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
          rule: (snap: Snapshot) => Either.Either<Decision<A>, Ledger.LedgerError>,
          followUp?: (result: A) => Effect.Effect<void, Errors.StoreError>
        ): Effect.Effect<A, Ledger.LedgerError | Errors.StoreError> => {
          if (!probe.failNextTransaction) return store.transact(request, rule, followUp)
          probe.failNextTransaction = false
          probe.injected++
          // Memory cannot roll back, so its failure comes where SQL's rollback leaves things: after
          // the rule decided (a refusal stays a refusal), before anything is applied.
          // The marker is matched by value: inside a span Effect hands the error back wrapped in a
          // Proxy that carries the span, so identity does not survive.
          if (kind === "memory") {
            const decided = new Ledger.HoldNotFound({ message: "simulated store failure", taskId: injectedMarker })
            return store
              .transact<A>(request, (snap) => Either.flatMap(rule(snap), () => Either.left(decided)))
              .pipe(
                Effect.catchIf(
                  (e) => e._tag === "HoldNotFound" && e.taskId === injectedMarker,
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
  MemorySandboxAcquirerStore.layer,
  MemoryInvoiceStores,
  MemoryAccessStores.layer,
  MemoryIdempotencyStore.layer
)

const sqlStores = Layer.mergeAll(
  SqlTaskStore.layer,
  SqlPaymentStore.layer,
  SqlSandboxAcquirerStore.layer,
  SqlInvoiceStores.layer,
  SqlAccessStores.layer,
  SqlIdempotencyStore.layer
)

/** The engine of one seed. `database` is the SQL client's context for `sql` (built once, shared by seeds). */
export const campaignEngine = (seed: number, kind: StoreKind, database?: Context.Context<SqlClient.SqlClient>) => {
  const sql = Layer.succeedContext(database as Context.Context<SqlClient.SqlClient>)
  const [ledgerAndOutbox, others] =
    kind === "memory"
      ? [Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer), memoryStores]
      : [
          Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer).pipe(Layer.provide(sql)),
          sqlStores.pipe(Layer.provide(sql))
        ]
  const probe = Layer.sync(
    StoreProbe,
    (): StoreProbeShape => ({ failNextTransaction: false, injected: 0, written: [] })
  )
  // The stores the probes do not wrap pass through as they are (only these two: the wrapped
  // LedgerStore and EventStore must not be shadowed by the originals).
  const untouched = Layer.effectContext(
    Effect.map(
      Effect.context<WebhookStores | TariffStore>(),
      Context.pick(EndpointStore, DeliveryQueue, DeliveryLog, WebhookRetentionStore, TariffStore)
    )
  )
  const decorated = Layer.mergeAll(untouched, probedLedgerStore(kind), recordingEventStore).pipe(
    Layer.provide(ledgerAndOutbox)
  )
  const stores = Layer.mergeAll(decorated, others).pipe(Layer.provideMerge(probe))
  const base = Layer.mergeAll(
    Ids.Ids.layerDeterministic(`frank-campaign-${seed}`),
    // node:crypto as in the host: synchronous HMACs, no thread-pool hop per signature or key check.
    NodeSecrets.layer(Redacted.make("simulation-pepper")),
    NodeWebhookSigner.layer,
    Events.DeliveryWakeup.layer,
    Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true }),
    ReceiversLive(seed),
    Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog),
    MemoryStoredFileLookup,
    ManualGenerationProvider,
    Tasks.TaskSettings.layer({ publicBaseUrl: "https://frank.test", holdTtlMs: SIMULATION_HOLD_TTL_MS })
  )
  const outside = Layer.mergeAll(
    Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig),
    MemoryBank.layer,
    SandboxAcquirer.layer({ baseUrl: "https://frank.test", secret: SANDBOX_SECRET })
  )
  // One attempt at a time: the receivers' answers do not depend on order, but this keeps the
  // worker's writes in one order on both store kinds.
  const worker = Webhooks.DeliveryWorker.layer({
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
  const services = Layer.mergeAll(
    Tasks.TaskExpiry.layer(SIMULATION_EXPIRY).pipe(Layer.provideMerge(Tasks.Tasks.layer)),
    Payments.Payments.layer,
    Invoices.Invoices.layer,
    Access.Access.layer
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Ledger.GrantExpiry.layer({ sweepIntervalMs: 60_000, batchSize: 3 }).pipe(
          Layer.provideMerge(Ledger.Ledger.layer)
        ),
        Webhooks.Webhooks.layer,
        worker
      )
    ),
    Layer.provideMerge(Events.Outbox.layer)
  )
  return services.pipe(Layer.provideMerge(outside), Layer.provideMerge(stores), Layer.provideMerge(base))
}
