/**
 * The host's HttpApi (partner + admin) with its handlers and security, ready to serve: the
 * reference host's server and an embedder's `frank.fetch` with `admin` enabled build it here.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names the handlers' services in this layer's type through them
import type { SandboxAcquirer, SandboxBank, SandboxGeneration } from "@frank/adapters"
// biome-ignore lint/correctness/noUnusedImports: as above, for the engine's services
import type {
  Access,
  Audit,
  Files,
  Invoices,
  Ledger,
  Payments,
  Pricing,
  RateLimit,
  Tariffs,
  Tasks,
  Webhooks
} from "@frank/core"
import { PartnerHandlersLive, SecurityLive } from "@frank/core/http"
import { Layer, type Redacted } from "effect"
import { AdminAuthLive, AdminHandlers } from "../admin/AdminHandlers.js"
import { HostApi } from "./HostApi.js"

/** The partner and admin APIs; the admin API answers only `Authorization: Bearer <adminToken>`. */
export const HostApiLive = (adminToken: Redacted.Redacted<string>) =>
  HttpApiBuilder.api(HostApi).pipe(
    Layer.provide([PartnerHandlersLive, AdminHandlers]),
    Layer.provide([SecurityLive, AdminAuthLive(adminToken)])
  )
