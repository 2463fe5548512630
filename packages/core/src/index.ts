/**
 * `@frank/core`: Frank's engine, one namespace per concept (Effect's style): `Ledger.Ledger` is the
 * ledger service, `Webhooks.Webhooks` the webhooks service. The store ports an adapter implements
 * (`LedgerStore`, `DeliveryQueue`, ...) are in `@frank/core/stores`, the HTTP API in
 * `@frank/core/http`, the in-memory stores and simulation kit in `@frank/core/testing`.
 * Everything not listed in a namespace module is implementation and may change without notice.
 * The whole surface, with signatures, is in etc/core.api.md.
 */

/** Access: partners, API keys and scopes, cabinet sessions, the `Access` service. */
export * as Access from "./access/index.js"
/** Audit: the audit log of changes (actor, action, target, request), its store and retention. */
export * as Audit from "./audit/index.js"
/** Errors: the store error every port fails with and the fields of coded domain errors. */
export * as Errors from "./Errors.js"
/** Events: event types and payloads, the catalog, the outbox and the event ports. */
export * as Events from "./events/index.js"
/** Files: stored files, URL imports, media probing and the blob/file stores. */
export * as Files from "./files/index.js"
/** Ids: the `Ids` service and the branded entity ids (`PartnerId`, `EndpointId`, ...). */
export * as Ids from "./Ids.js"
/** Invoices: bank invoices, the company profile and the bank gateway port. */
export * as Invoices from "./invoices/index.js"
/** Ledger: accounts, entries, holds, the `Ledger` service and its store port. */
export * as Ledger from "./ledger/index.js"
/** Money: integer minor units and conversions to and from francs. */
export * as Money from "./Money.js"
/** Net: which addresses and URLs the engine may reach. */
export * as Net from "./net/index.js"
/** Payments: card payments, their states, the provider and store ports. */
export * as Payments from "./payments/index.js"
/** Pricing: the catalog, estimates, quotes and the `Pricing` service. */
export * as Pricing from "./pricing/index.js"
/** RateLimit: fixed-window limits, their configuration and the `RateLimiter` service. */
export * as RateLimit from "./ratelimit/index.js"
/** Tariffs: plans, the tariff configuration and the `Tariffs` service. */
export * as Tariffs from "./tariff/index.js"
/** Tasks: generation tasks, the provider and store ports, the `Tasks` service. */
export * as Tasks from "./tasks/index.js"
/** Time: millisecond and second constants for durations, and `iso` for instants the API writes. */
export * as Time from "./Time.js"
/** WebhookReceiver: verify, decode and process once the deliveries a receiver gets. */
export * as WebhookReceiver from "./webhooks/receiver/index.js"
/** Webhooks: endpoints, deliveries, the `Webhooks` service, the worker and the store/transport ports. */
export * as Webhooks from "./webhooks/index.js"
/** WebhookSigning: Frank's and Standard Webhooks' signatures and the `WebhookSigner` port. */
export * as WebhookSigning from "./webhooks/signing/index.js"
