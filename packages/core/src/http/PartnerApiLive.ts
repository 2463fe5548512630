/**
 * Everything that serves the partner API, for embedders and hosts alike: the handlers of every
 * group and the security middlewares. Needs the engine services (Ledger, Access, AuditLog, RateLimiter,
 * Tariffs, Pricing, Webhooks, Tasks) and SecuritySettings.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Layer } from "effect"
import { AuditHandlers } from "./internal/handlers/AuditHandlers.js"
import { AuthHandlers } from "./internal/handlers/AuthHandlers.js"
import { BillingHandlers } from "./internal/handlers/BillingHandlers.js"
import { FilesHandlers } from "./internal/handlers/FilesHandlers.js"
import { KeysHandlers } from "./internal/handlers/KeysHandlers.js"
import { LedgerHandlers } from "./internal/handlers/LedgerHandlers.js"
import { TasksHandlers } from "./internal/handlers/TasksHandlers.js"
import { WebhooksHandlers } from "./internal/handlers/WebhooksHandlers.js"
import { PaymentsHandlers } from "./internal/handlers/PaymentsHandlers.js"
import { InvoicesHandlers } from "./internal/handlers/InvoicesHandlers.js"
import { PartnerApi } from "./PartnerApi.js"
import { SecurityLive } from "./SecurityLive.js"

/** The handler layers of every partner group (a host adding groups of its own provides these too). */
export const PartnerHandlersLive = Layer.mergeAll(
  KeysHandlers,
  AuthHandlers,
  BillingHandlers,
  LedgerHandlers,
  WebhooksHandlers,
  FilesHandlers,
  PaymentsHandlers,
  TasksHandlers,
  InvoicesHandlers,
  AuditHandlers
)

/** The partner API alone, ready for `HttpApiBuilder.serve` or `toWebHandler`. */
export const PartnerApiLive = HttpApiBuilder.api(PartnerApi).pipe(
  Layer.provide(PartnerHandlersLive),
  Layer.provide(SecurityLive)
)
