/**
 * The webhook service behind the partner API: endpoint registration and changes, secret
 * rotation, test events, the delivery log and replay. Rules are pure functions elsewhere in this
 * folder; this service draws time, ids and randomness and hands the rules to the store.
 */
import { Clock, Context, Effect, Either, Layer } from "effect"
import { Secrets, toBase64 } from "../access/Secrets.js"
import { type DeliveryId, EndpointId, type PartnerId } from "../EntityIds.js"
import { Ids } from "../internal/ids.js"
import { checkEndpointUrl } from "../net/endpointUrl.js"
import type { StoreError } from "../StoreError.js"
import {
  type AttemptBucket,
  type DeliveryDetail,
  type DeliveryFilter,
  type DeliveryPage,
  type DeliveryRecord,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE
} from "./Delivery.js"
import { applyPatch, type EndpointPatch, MAX_ENDPOINTS_PER_PARTNER, rotate, type WebhookEndpoint } from "./Endpoint.js"
import { SECRET_BYTES, SECRET_PREFIX } from "./signing/internal/secretFormat.js"
import { newEndpointHealth } from "./EndpointHealth.js"
import { type EmittedEvent, Outbox } from "../events/Outbox.js"
import { EventType } from "../events/EventType.js"
import { eventCatalog } from "../events/EventCatalog.js"
import { DAY_MS, HOUR_MS } from "../timeUnits.js"
import { type RecoveryRequest, type RecoveryResult, recoveryWindow } from "./recoveryWindow.js"
import { endpointReplayRule, recoveryRule, replayRule } from "./replayRule.js"
import { DEFAULT_SIGNATURE_SCHEME, type SignatureScheme, signsStandard } from "./signing/SignatureScheme.js"
import { isStandardSecret } from "./signing/standardSignature.js"
import {
  DeliveryCursorInvalid,
  DeliveryNotFound,
  EndpointInactive,
  EndpointLimitExceeded,
  EndpointNotFound,
  EndpointRateInvalid,
  EndpointRequestInvalid,
  EndpointSecretNeedsRotation,
  EndpointUrlRejected,
  EventTypeUnknown,
  type RecoveryError,
  type ReplayError
} from "./WebhookError.js"
import { recoveredPerCall, retentionMs, WebhookSettings } from "./WebhookSettings.js"
import { isValidRate, MAX_RATE_PER_SECOND, MIN_RATE_PER_SECOND } from "./deliveryRate.js"
import { DeliveryLog } from "./store/DeliveryLog.js"
import { EndpointStore } from "./store/EndpointStore.js"

export interface NewEndpoint {
  readonly url: string
  /** Omitted: every event type. */
  readonly eventTypes?: ReadonlyArray<string> | undefined
  /** Omitted: `frank`. */
  readonly signatureScheme?: SignatureScheme | undefined
  /** Omitted or null: unlimited; else an integer in 1..10,000. */
  readonly rateLimitPerSecond?: number | null | undefined
}

export interface EndpointChange {
  readonly url?: string | undefined
  readonly eventTypes?: ReadonlyArray<string> | null | undefined
  readonly active?: boolean | undefined
  readonly signatureScheme?: SignatureScheme | undefined
  /** null: unlimited. */
  readonly rateLimitPerSecond?: number | null | undefined
}

/** Attempt counts per bucket: 24 hourly buckets and 7 daily ones, each ending now. */
export interface EndpointStats {
  readonly day: ReadonlyArray<AttemptBucket>
  readonly week: ReadonlyArray<AttemptBucket>
}

type RegistrationError = EndpointUrlRejected | EventTypeUnknown | EndpointRequestInvalid | EndpointRateInvalid

export interface WebhooksShape {
  readonly createEndpoint: (
    partnerId: PartnerId,
    input: NewEndpoint
  ) => Effect.Effect<WebhookEndpoint, RegistrationError | EndpointLimitExceeded | StoreError>
  readonly listEndpoints: (partnerId: PartnerId) => Effect.Effect<ReadonlyArray<WebhookEndpoint>, StoreError>
  readonly getEndpoint: (
    partnerId: PartnerId,
    id: EndpointId
  ) => Effect.Effect<WebhookEndpoint, EndpointNotFound | StoreError>
  readonly updateEndpoint: (
    partnerId: PartnerId,
    id: EndpointId,
    change: EndpointChange
  ) => Effect.Effect<WebhookEndpoint, RegistrationError | EndpointNotFound | EndpointSecretNeedsRotation | StoreError>
  readonly deleteEndpoint: (partnerId: PartnerId, id: EndpointId) => Effect.Effect<void, EndpointNotFound | StoreError>
  readonly rotateSecret: (
    partnerId: PartnerId,
    id: EndpointId
  ) => Effect.Effect<WebhookEndpoint, EndpointNotFound | StoreError>
  /** Enqueues `webhook.test` for exactly this endpoint. */
  readonly sendTest: (
    partnerId: PartnerId,
    id: EndpointId
  ) => Effect.Effect<EmittedEvent, EndpointNotFound | EndpointInactive | StoreError>
  readonly listDeliveries: (
    partnerId: PartnerId,
    filter: DeliveryFilter,
    limit: number | undefined,
    cursor: string | undefined
  ) => Effect.Effect<DeliveryPage, DeliveryCursorInvalid | StoreError>
  readonly replay: (
    partnerId: PartnerId,
    deliveryId: DeliveryId
  ) => Effect.Effect<DeliveryRecord, ReplayError | StoreError>
  /** One delivery with its event's payload and every attempt. */
  readonly getDelivery: (
    partnerId: PartnerId,
    deliveryId: DeliveryId
  ) => Effect.Effect<DeliveryDetail, DeliveryNotFound | StoreError>
  /** The endpoint's attempts over the last 24 hours (hourly) and 7 days (daily), oldest bucket first. */
  readonly endpointStats: (
    partnerId: PartnerId,
    id: EndpointId
  ) => Effect.Effect<EndpointStats, EndpointNotFound | StoreError>
  /**
   * Enqueues `webhook.test` for exactly this endpoint carrying the catalog's example of
   * `eventType` (`exampleOf`, `example`): what a receiver of that type would parse, marked as a test.
   */
  readonly sendExample: (
    partnerId: PartnerId,
    id: EndpointId,
    eventType: string
  ) => Effect.Effect<EmittedEvent, EndpointNotFound | EndpointInactive | EventTypeUnknown | StoreError>
  /**
   * Bulk recovery: every `dead_lettered` or `uncertain` delivery of the endpoint created in
   * [since, until) goes back to `pending` by the replay rule, oldest first, at most
   * `WebhookSettings.recoveredPerCall` (MAX_RECOVERED_PER_CALL by default) per call.
   */
  readonly recover: (
    partnerId: PartnerId,
    endpointId: EndpointId,
    request: RecoveryRequest
  ) => Effect.Effect<RecoveryResult, RecoveryError | StoreError>
}

/** Unknown names are listed together, so one answer says everything that is wrong. */
const checkEventTypes = (names: ReadonlyArray<string>): Either.Either<ReadonlyArray<EventType>, EventTypeUnknown> => {
  const known = new Set<string>(EventType.literals)
  const unknown = names.filter((n) => !known.has(n))
  if (unknown.length > 0)
    return Either.left(
      new EventTypeUnknown({
        message: `unknown event type(s): ${unknown.join(", ")}; known: ${EventType.literals.join(", ")}`
      })
    )
  if (names.length === 0)
    return Either.left(
      new EventTypeUnknown({ message: "eventTypes must name at least one event type; omit it to receive all" })
    )
  return Either.right([...new Set(names)] as ReadonlyArray<EventType>)
}

/** The webhooks service: endpoints, secret rotation, delivery listing, replay and recovery. */
export class Webhooks extends Context.Tag("@frank/core/Webhooks")<Webhooks, WebhooksShape>() {
  static readonly layer = Layer.effect(
    Webhooks,
    Effect.gen(function* () {
      const endpoints = yield* EndpointStore
      const log = yield* DeliveryLog
      const ids = yield* Ids
      const secrets = yield* Secrets
      const outbox = yield* Outbox
      const settings = yield* WebhookSettings

      const newSecret = Effect.map(secrets.randomBytes(SECRET_BYTES), (bytes) => `${SECRET_PREFIX}${toBase64(bytes)}`)

      const checkUrl = (raw: string) =>
        Either.match(checkEndpointUrl(raw, settings), {
          onLeft: (r) => Either.left(new EndpointUrlRejected({ code: r.code, message: r.message })),
          onRight: (url) => Either.right(url.href)
        })

      /**
       * Checks url and event types together: one failure keeps its own code, several answer
       * VALIDATION_FAILED listing every message.
       */
      const checkRegistration = (
        url: string | undefined,
        eventTypes: ReadonlyArray<string> | null | undefined
      ): Effect.Effect<
        { readonly url: string | undefined; readonly eventTypes: ReadonlyArray<EventType> | null | undefined },
        RegistrationError
      > => {
        const u: Either.Either<string | undefined, EndpointUrlRejected> =
          url === undefined ? Either.right(undefined) : checkUrl(url)
        const t: Either.Either<ReadonlyArray<EventType> | null | undefined, EventTypeUnknown> =
          eventTypes === undefined || eventTypes === null ? Either.right(eventTypes) : checkEventTypes(eventTypes)
        if (Either.isLeft(u) && Either.isLeft(t))
          return Effect.fail(
            new EndpointRequestInvalid({ message: "invalid endpoint", messages: [u.left.message, t.left.message] })
          )
        if (Either.isLeft(u)) return Effect.fail(u.left)
        if (Either.isLeft(t)) return Effect.fail(t.left)
        return Effect.succeed({ url: u.right, eventTypes: t.right })
      }

      const checkRate = (rate: number | null | undefined) =>
        rate === undefined || isValidRate(rate)
          ? Effect.void
          : Effect.fail(
              new EndpointRateInvalid({
                message: `rateLimitPerSecond must be null (unlimited) or an integer from ${MIN_RATE_PER_SECOND} to ${MAX_RATE_PER_SECOND}`
              })
            )

      const notFound = (id: string) => new EndpointNotFound({ message: `no webhook endpoint ${id}` })
      const orNotFound = <A>(id: string, found: A | undefined) =>
        found === undefined ? Effect.fail(notFound(id)) : Effect.succeed(found)

      /**
       * Standard Webhooks signing needs a secret its libraries decode. Checked before the write:
       * every secret issued since this scheme exists has that form, so a rotation racing this check
       * can only make it pass, never fail.
       */
      const checkStandardSecret = (partnerId: PartnerId, id: EndpointId) =>
        Effect.flatMap(endpoints.getEndpoint(partnerId, id), (current) =>
          current === undefined || isStandardSecret(current.secret)
            ? Effect.void
            : Effect.fail(
                new EndpointSecretNeedsRotation({
                  message:
                    "this endpoint's secret predates Standard Webhooks signing and its libraries cannot decode it; " +
                    "rotate the secret (POST .../rotate-secret), then set signatureScheme again"
                })
              )
        )

      const createEndpoint: WebhooksShape["createEndpoint"] = (partnerId, input) =>
        Effect.gen(function* () {
          const checked = yield* checkRegistration(input.url, input.eventTypes)
          yield* checkRate(input.rateLimitPerSecond)
          const url = checked.url ?? input.url
          const eventTypes = checked.eventTypes ?? null
          const now = yield* Clock.currentTimeMillis
          const endpoint: WebhookEndpoint = {
            partnerId,
            id: yield* ids.nextId(EndpointId),
            url,
            eventTypes,
            active: true,
            secret: yield* newSecret,
            previousSecret: null,
            previousSecretValidUntil: null,
            signatureScheme: input.signatureScheme ?? DEFAULT_SIGNATURE_SCHEME,
            rateLimitPerSecond: input.rateLimitPerSecond ?? null,
            createdAt: now,
            updatedAt: now,
            health: newEndpointHealth
          }
          const inserted = yield* endpoints.insertEndpoint(endpoint, MAX_ENDPOINTS_PER_PARTNER)
          if (!inserted)
            return yield* new EndpointLimitExceeded({
              message: `a partner may have at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints; delete one first`
            })
          return endpoint
        })

      const updateEndpoint: WebhooksShape["updateEndpoint"] = (partnerId, id, change) =>
        Effect.gen(function* () {
          const checked = yield* checkRegistration(change.url, change.eventTypes)
          yield* checkRate(change.rateLimitPerSecond)
          const patch: EndpointPatch = {
            url: checked.url,
            eventTypes: checked.eventTypes,
            active: change.active,
            signatureScheme: change.signatureScheme,
            rateLimitPerSecond: change.rateLimitPerSecond
          }
          if (change.signatureScheme !== undefined && signsStandard(change.signatureScheme))
            yield* checkStandardSecret(partnerId, id)
          const now = yield* Clock.currentTimeMillis
          const updated = yield* orNotFound(
            id,
            yield* endpoints.modifyEndpoint(partnerId, id, (e) => applyPatch(e, patch, now))
          )
          // Reactivating releases deliveries that waited while the endpoint was paused.
          if (change.active === true) yield* outbox.wake
          return updated
        })

      const rotateSecret: WebhooksShape["rotateSecret"] = (partnerId, id) =>
        Effect.gen(function* () {
          const secret = yield* newSecret
          const now = yield* Clock.currentTimeMillis
          return yield* orNotFound(
            id,
            yield* endpoints.modifyEndpoint(partnerId, id, (current) => rotate(current, secret, now))
          )
        })

      const sendTestWith = (
        partnerId: PartnerId,
        id: EndpointId,
        example: { exampleOf: string; example: unknown } | undefined
      ) =>
        Effect.gen(function* () {
          const endpoint = yield* orNotFound(id, yield* endpoints.getEndpoint(partnerId, id))
          if (!endpoint.active)
            return yield* new EndpointInactive({ message: "the endpoint is inactive; activate it with PATCH first" })
          const emitted = yield* outbox.emit(
            partnerId,
            { type: "webhook.test", data: { endpointId: id, ...example } },
            { _tag: "Endpoint", endpointId: id }
          )
          yield* outbox.wake
          return emitted
        })
      const sendTest: WebhooksShape["sendTest"] = (partnerId, id) => sendTestWith(partnerId, id, undefined)
      const sendExample: WebhooksShape["sendExample"] = (partnerId, id, eventType) => {
        const entry = eventCatalog.find((e) => e.type === eventType)
        return entry === undefined
          ? Effect.fail(
              new EventTypeUnknown({
                message: `unknown event type: ${eventType}; known: ${EventType.literals.join(", ")}`
              })
            )
          : sendTestWith(partnerId, id, { exampleOf: entry.type, example: entry.example })
      }

      const endpointStats: WebhooksShape["endpointStats"] = (partnerId, id) =>
        Effect.gen(function* () {
          yield* orNotFound(id, yield* endpoints.getEndpoint(partnerId, id))
          const now = yield* Clock.currentTimeMillis
          // Buckets end at the next whole hour (day), so the newest bucket holds the last attempts.
          const hourEnd = Math.ceil((now + 1) / HOUR_MS) * HOUR_MS
          const dayEnd = Math.ceil((now + 1) / DAY_MS) * DAY_MS
          const [day, week] = yield* Effect.all([
            log.attemptStats(partnerId, id, hourEnd - 24 * HOUR_MS, HOUR_MS, 24),
            log.attemptStats(partnerId, id, dayEnd - 7 * DAY_MS, DAY_MS, 7)
          ])
          return { day, week }
        })

      const listDeliveries: WebhooksShape["listDeliveries"] = (partnerId, filter, limit, cursor) =>
        Effect.gen(function* () {
          const after =
            cursor === undefined
              ? undefined
              : yield* Either.match(decodeCursor(cursor), {
                  onLeft: (message) => Effect.fail(new DeliveryCursorInvalid({ message })),
                  onRight: Effect.succeed
                })
          const size = Math.min(MAX_PAGE_SIZE, Math.max(1, limit ?? DEFAULT_PAGE_SIZE))
          return yield* log.listDeliveries(partnerId, filter, size, after)
        })

      const replay: WebhooksShape["replay"] = (partnerId, deliveryId) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const result = yield* log.updateDelivery(partnerId, deliveryId, replayRule(now), now)
          if (result === undefined) return yield* new DeliveryNotFound({ message: `no delivery ${deliveryId}` })
          const replayed = yield* result
          yield* outbox.wake
          return replayed
        })

      const recover: WebhooksShape["recover"] = (partnerId, endpointId, request) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const window = yield* recoveryWindow(request, now, retentionMs(settings))
          const rules = { endpoint: endpointReplayRule, delivery: recoveryRule(now) }
          const result = yield* orNotFound(
            endpointId,
            yield* log.recoverDeliveries(partnerId, endpointId, window, recoveredPerCall(settings), rules, now)
          )
          const recovered = yield* result
          if (recovered.requeued > 0) yield* outbox.wake
          return recovered
        })

      return {
        createEndpoint,
        listEndpoints: endpoints.listEndpoints,
        getEndpoint: (partnerId, id) => Effect.flatMap(endpoints.getEndpoint(partnerId, id), (e) => orNotFound(id, e)),
        updateEndpoint,
        deleteEndpoint: (partnerId, id) =>
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            if (!(yield* endpoints.deleteEndpoint(partnerId, id, now))) return yield* notFound(id)
          }),
        rotateSecret,
        sendTest,
        listDeliveries,
        replay,
        recover,
        getDelivery: (partnerId, id) =>
          Effect.flatMap(log.getDelivery(partnerId, id), (d) =>
            d === undefined ? Effect.fail(new DeliveryNotFound({ message: `no delivery ${id}` })) : Effect.succeed(d)
          ),
        endpointStats,
        sendExample
      }
    })
  )
}
