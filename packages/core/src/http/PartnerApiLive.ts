/**
 * Everything that serves the partner API, for embedders and hosts alike: the handlers of every
 * group and the security middlewares. Needs the engine services (Ledger, Access, RateLimiter,
 * Tariffs, Pricing, Webhooks, Tasks) and SecuritySettings.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { AuthHandlers } from "./handlers/AuthHandlers.js"
import { BillingHandlers } from "./handlers/BillingHandlers.js"
import { FilesHandlers } from "./handlers/FilesHandlers.js"
import { KeysHandlers } from "./handlers/KeysHandlers.js"
import { LedgerHandlers } from "./handlers/LedgerHandlers.js"
import { TasksHandlers } from "./handlers/TasksHandlers.js"
import { WebhooksHandlers } from "./handlers/WebhooksHandlers.js"
import { PaymentsHandlers } from "./handlers/PaymentsHandlers.js"
import { InvoicesHandlers } from "./handlers/InvoicesHandlers.js"
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
  InvoicesHandlers
)

/** The partner API alone, ready for `HttpApiBuilder.serve` or `toWebHandler`. */
export const PartnerApiLive = HttpApiBuilder.api(PartnerApi).pipe(
  Layer.provide(PartnerHandlersLive),
  Layer.provide(SecurityLive)
)
