/**
 * A webhook endpoint and the pure rules about it: how many a partner may have, how its signing
 * secrets rotate, and which secrets sign a delivery at a given moment (spec "Webhook endpoint",
 * "Secret rotation", docs/contract.md §5 "signing key").
 */
import type { EndpointId, PartnerId } from "../EntityIds.js"
import type { EventType } from "../events/EventType.js"
import type { SignatureScheme } from "./signing/SignatureScheme.js"
import { HOUR_MS } from "../timeUnits.js"
import { afterActiveChange, type DisablePolicy, type EndpointHealth, meetsDisableRule } from "./EndpointHealth.js"

/** Spec "Limits": webhook endpoints per partner. */
export const MAX_ENDPOINTS_PER_PARTNER = 10
/** Spec "Secret rotation": the old secret keeps signing for 6 hours. */
export const ROTATION_GRACE_MS = 6 * HOUR_MS

/** A webhook endpoint: its URL, event types, secrets, scheme and health. */
export interface WebhookEndpoint {
  readonly partnerId: PartnerId
  readonly id: EndpointId
  readonly url: string
  /** `null` subscribes to every event type (the default when `eventTypes` is omitted). */
  readonly eventTypes: ReadonlyArray<EventType> | null
  readonly active: boolean
  readonly secret: string
  readonly previousSecret: string | null
  readonly previousSecretValidUntil: number | null
  /** Which headers sign its deliveries (SignatureScheme.ts). */
  readonly signatureScheme: SignatureScheme
  /** At most this many attempts start in any one second (deliveryRate.ts); null: unlimited. */
  readonly rateLimitPerSecond: number | null
  readonly createdAt: number
  readonly updatedAt: number
  /** Last success, failing span, pause (EndpointHealth.ts). */
  readonly health: EndpointHealth
}

/** What may change with PATCH; absent fields stay as they are. */
export interface EndpointPatch {
  readonly url?: string | undefined
  readonly eventTypes?: ReadonlyArray<EventType> | null | undefined
  readonly active?: boolean | undefined
  readonly signatureScheme?: SignatureScheme | undefined
  /** null: unlimited. */
  readonly rateLimitPerSecond?: number | null | undefined
}

/** PATCH semantics: absent fields stay; `eventTypes: null` subscribes to everything; `active` moves the health's pause. */
export const applyPatch = (endpoint: WebhookEndpoint, patch: EndpointPatch, now: number): WebhookEndpoint => ({
  ...endpoint,
  url: patch.url ?? endpoint.url,
  eventTypes: patch.eventTypes === undefined ? endpoint.eventTypes : patch.eventTypes,
  active: patch.active ?? endpoint.active,
  signatureScheme: patch.signatureScheme ?? endpoint.signatureScheme,
  rateLimitPerSecond: patch.rateLimitPerSecond === undefined ? endpoint.rateLimitPerSecond : patch.rateLimitPerSecond,
  updatedAt: now,
  health: afterActiveChange(endpoint.health, endpoint.active, patch.active ?? endpoint.active, now)
})

/**
 * The health rule's pause: the endpoint as the rule leaves it at `now` (inactive, reason
 * `failing`), or undefined when the rule does not hold for it (any more: a success came in, or the
 * partner paused it first).
 */
export const disableForFailing =
  (policy: DisablePolicy, now: number) =>
  (endpoint: WebhookEndpoint): WebhookEndpoint | undefined =>
    endpoint.active && meetsDisableRule(endpoint.health, policy, now)
      ? {
          ...endpoint,
          active: false,
          updatedAt: now,
          health: afterActiveChange(endpoint.health, true, false, now, "failing")
        }
      : undefined

export const subscribes = (endpoint: Pick<WebhookEndpoint, "eventTypes">, type: EventType): boolean =>
  type === "webhook.test" || endpoint.eventTypes === null || endpoint.eventTypes.includes(type)

/**
 * The rotation rule: the current secret becomes the previous one for the grace window and the
 * new secret signs from now on. Only one previous secret is kept, so rotating again inside the
 * window drops the secret two generations back at once.
 */
export const rotate = (endpoint: WebhookEndpoint, newSecret: string, now: number): WebhookEndpoint => ({
  ...endpoint,
  secret: newSecret,
  previousSecret: endpoint.secret,
  previousSecretValidUntil: now + ROTATION_GRACE_MS,
  updatedAt: now
})

/** The secrets a delivery sent at `now` is signed with: current, then previous while its window lasts. */
export const signingSecrets = (
  endpoint: Pick<WebhookEndpoint, "secret" | "previousSecret" | "previousSecretValidUntil">,
  now: number
): { readonly current: string; readonly previous: string | null } => ({
  current: endpoint.secret,
  previous:
    endpoint.previousSecret !== null &&
    endpoint.previousSecretValidUntil !== null &&
    now < endpoint.previousSecretValidUntil
      ? endpoint.previousSecret
      : null
})
