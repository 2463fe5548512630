/**
 * The reference host: `npm start`. Configuration from the environment (docs/contract.md §6), the
 * embedded database unless DATABASE_URL is set, migrations at start, then the HTTP server. SIGTERM
 * stops taking requests, lets in-flight ones finish and exits 0.
 */
import { Migrations } from "@frank/adapters"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Ids } from "@frank/core"
import { Effect, Layer, Option } from "effect"
import { HostConfig, hostConfig } from "./config/HostConfig.js"
import { migratedDatabaseLayer } from "./db/database.js"
import { engineLayer, loadCatalog } from "./engine.js"
import { jsonLogging } from "./logging/jsonLogger.js"
import { Metrics } from "./metrics/Metrics.js"
import { webhookBacklogGauges } from "./metrics/webhookMetrics.js"
import { SandboxClock } from "./sandbox/SandboxClock.js"
import { otelSettings } from "./telemetry/otelConfig.js"
import { telemetryLayers } from "./telemetry/otlpLayer.js"
import { announceAdminToken } from "./secrets/adminTokenNotice.js"
import { loadOrCreateSecret } from "./secrets/fileSecret.js"
import { httpLayer } from "./server/HttpLive.js"
import { requestLimits } from "./server/requestGuard.js"
import { Readiness } from "./server/Readiness.js"
import { deliveryWorkerLayer } from "./workers/deliveryWorker.js"
import { makeNotifyOrigin } from "./workers/notifyOrigin.js"
import { retentionSweeperLayer } from "./workers/retentionSweeper.js"
import { grantExpirySweeperLayer } from "./workers/grantExpirySweeper.js"
import { taskExpirySweeperLayer } from "./workers/taskExpirySweeper.js"

const program = Effect.gen(function* () {
  const config = yield* hostConfig
  // OTEL_EXPORTER_OTLP_ENDPOINT unset: no exporter is loaded and Effect's tracer stays off.
  const telemetry = telemetryLayers(Option.getOrUndefined(yield* otelSettings))
  const adminToken = yield* loadOrCreateSecret(config.dataDir, "admin-token", config.adminToken)
  const pepper = yield* loadOrCreateSecret(config.dataDir, "key-pepper", config.keyPepper)
  // Shown once, on the first start; afterwards only where it is kept.
  yield* announceAdminToken(adminToken)
  if (config.allowPrivateNetwork)
    yield* Effect.logWarning(
      "FRANK_ALLOW_PRIVATE_NETWORK is on: webhooks and imports may reach private addresses (development only)"
    )
  if (config.sandboxClock)
    yield* Effect.logWarning("FRANK_SANDBOX_CLOCK is on: the admin API can move this host's clock (sandbox only)")
  const catalog = yield* loadCatalog(config.pricingCatalog)
  const sandbox = SandboxClock.make(config.sandboxClock)

  const Database = migratedDatabaseLayer(config)
  const notifyOrigin = makeNotifyOrigin()
  const Engine = engineLayer(config, pepper.value, catalog, notifyOrigin)
  // On SIGTERM the server stops taking requests and the worker stops claiming and lets in-flight
  // deliveries finish; the database (provided below both) closes after them.
  const Server = httpLayer({
    port: config.port,
    host: config.host,
    adminToken: adminToken.value,
    limits: requestLimits(config),
    corsOrigins: config.corsOrigins
  })
  const Worker = deliveryWorkerLayer({
    listen: config.databaseUrl._tag === "Some",
    isOwnNotification: notifyOrigin.isOwn
  })
  const Main = Layer.mergeAll(
    Server,
    Worker,
    retentionSweeperLayer,
    grantExpirySweeperLayer,
    taskExpirySweeperLayer,
    webhookBacklogGauges
  ).pipe(
    Layer.provide(Readiness.layer(Migrations.count)),
    Layer.provide(Engine),
    Layer.provide(Database),
    // Built before the database and the engine, so their spans and logs go to the exporter too.
    Layer.provide(telemetry.exporters),
    Layer.provide(
      Layer.mergeAll(Metrics.layer, SandboxClock.layer(sandbox), Layer.succeed(HostConfig, config), Ids.Ids.layer)
    ),
    // Without an exporter spans would only cost CPU per request and per query
    // (docs/performance.md, "Spans"), so Effect's tracer is on only with OTLP export.
    Layer.provide(telemetry.tracing)
  )
  yield* Effect.logInfo("starting Frank host").pipe(
    Effect.annotateLogs({ port: config.port, database: config.databaseUrl._tag === "Some" ? "postgres" : "embedded" })
  )
  // Layer.launch with the lifecycle told in the log: when the host is serving, and on SIGTERM
  // that it is draining (the first finalizer to run, as it is added after everything is built)
  // and when it is done, so an operator watching the log knows the exit is not a crash.
  const serve = Effect.scoped(
    Effect.gen(function* () {
      yield* Layer.build(Main)
      yield* Effect.logInfo("Frank host ready").pipe(
        Effect.annotateLogs({ host: config.host, port: config.port, publicBaseUrl: config.publicBaseUrl })
      )
      yield* Effect.addFinalizer(() =>
        Effect.logInfo("stopping: no new requests; in-flight requests and deliveries finish, then the database closes")
      )
      return yield* Effect.never
    })
  ).pipe(Effect.onInterrupt(() => Effect.logInfo("Frank host stopped")))
  return yield* serve.pipe(
    config.sandboxClock ? Effect.withClock(sandbox.clock) : (e) => e,
    Effect.withTracerEnabled(telemetry.enabled)
  )
})

const logging = Effect.map(Effect.orDie(hostConfig), (c) => jsonLogging(c.logLevel))

NodeRuntime.runMain(program.pipe(Effect.provide(Layer.unwrapEffect(logging))), { disablePrettyLogger: true })
