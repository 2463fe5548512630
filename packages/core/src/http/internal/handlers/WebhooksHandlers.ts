/**
 * Handlers of the webhooks group: thin translations between the Webhooks service and the views.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { DeliveryId, EndpointId, parseId } from "../../../EntityIds.js"
import { eventCatalog } from "../../../events/EventCatalog.js"
import { allEventTypes } from "../../../events/EventType.js"
import type { DeliveryDetail, DeliveryRecord } from "../../../webhooks/Delivery.js"
import { encodeCursor } from "../../../webhooks/Delivery.js"
import type { WebhookEndpoint } from "../../../webhooks/Endpoint.js"
import type { EndpointHealth } from "../../../webhooks/EndpointHealth.js"
import { DeliveryNotFound, EndpointNotFound } from "../../../webhooks/WebhookError.js"
import { Webhooks } from "../../../webhooks/Webhooks.js"
import { orApiError } from "../../errors/domainErrors.js"
import { idOr } from "../../pathIds.js"
import type { DeliveryDetailView, DeliveryView, EndpointView } from "../../groups/WebhooksGroup.js"
import { PartnerApi } from "../../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"
import { iso } from "../../../isoTime.js"

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

/** The health fields of the endpoint resource; the rule's counters stay inside. */
const healthView = (h: EndpointHealth) => ({
  lastSuccessAt: isoOrNull(h.lastSuccessAt),
  failingSince: isoOrNull(h.failingSince),
  disabledAt: isoOrNull(h.disabledAt),
  disabledReason: h.disabledReason
})

export const endpointView = (e: WebhookEndpoint, now: number): EndpointView => ({
  id: e.id,
  url: e.url,
  eventTypes: e.eventTypes ?? allEventTypes,
  subscribedToAll: e.eventTypes === null,
  active: e.active,
  // Past the window the previous secret no longer signs; say so by not showing a stale time.
  previousSecretValidUntil:
    e.previousSecretValidUntil !== null && e.previousSecretValidUntil > now ? iso(e.previousSecretValidUntil) : null,
  signatureScheme: e.signatureScheme,
  rateLimitPerSecond: e.rateLimitPerSecond,
  ...healthView(e.health),
  createdAt: iso(e.createdAt),
  updatedAt: iso(e.updatedAt)
})

export const deliveryView = (d: DeliveryRecord): DeliveryView => ({
  id: d.id,
  endpointId: d.endpointId,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  responseCodes: d.responseCodes,
  lastError: d.lastError,
  nextAttemptAt: d.status === "pending" ? isoOrNull(d.nextAttemptAt) : null,
  createdAt: iso(d.createdAt),
  updatedAt: iso(d.updatedAt)
})

/** The stored envelope parsed (it is JSON the outbox wrote); kept as text should it ever not be. */
const parsedPayload = (payload: string): unknown => {
  try {
    return JSON.parse(payload)
  } catch {
    return payload
  }
}

export const deliveryDetailView = (d: DeliveryDetail): DeliveryDetailView => ({
  ...deliveryView(d),
  payload: parsedPayload(d.payload),
  attemptLog: d.attemptLog.map((a) => ({
    attempt: a.attempt,
    startedAt: iso(a.startedAt),
    durationMs: a.durationMs,
    responseStatus: a.responseStatus,
    responseBody: a.responseSnippet ?? null,
    error: a.error
  }))
})

export const WebhooksHandlers = HttpApiBuilder.group(PartnerApi, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const partner = Effect.map(CurrentApiKey, (k) => k.partnerId)
    const now = Effect.clockWith((c) => c.currentTimeMillis)
    const endpoint = (raw: string) =>
      orApiError(idOr(EndpointId, raw, () => new EndpointNotFound({ message: `no webhook endpoint ${raw}` })))
    return handlers
      .handle("listEndpoints", () =>
        Effect.gen(function* () {
          const list = yield* orApiError(webhooks.listEndpoints(yield* partner))
          const at = yield* now
          return { items: list.map((e) => endpointView(e, at)) }
        })
      )
      .handle("getEndpoint", ({ path }) =>
        Effect.gen(function* () {
          const e = yield* orApiError(webhooks.getEndpoint(yield* partner, yield* endpoint(path.id)))
          return endpointView(e, yield* now)
        })
      )
      .handle("createEndpoint", ({ payload }) =>
        Effect.gen(function* () {
          const e = yield* orApiError(webhooks.createEndpoint(yield* partner, payload))
          return { ...endpointView(e, yield* now), secret: e.secret }
        })
      )
      .handle("updateEndpoint", ({ path, payload }) =>
        Effect.gen(function* () {
          const e = yield* orApiError(webhooks.updateEndpoint(yield* partner, yield* endpoint(path.id), payload))
          return endpointView(e, yield* now)
        })
      )
      .handle("deleteEndpoint", ({ path }) =>
        Effect.gen(function* () {
          yield* orApiError(webhooks.deleteEndpoint(yield* partner, yield* endpoint(path.id)))
          return { id: path.id, deleted: true }
        })
      )
      .handle("rotateSecret", ({ path }) =>
        Effect.gen(function* () {
          const e = yield* orApiError(webhooks.rotateSecret(yield* partner, yield* endpoint(path.id)))
          return {
            id: e.id,
            secret: e.secret,
            previousSecretValidUntil: iso(e.previousSecretValidUntil ?? e.updatedAt)
          }
        })
      )
      .handle("sendTest", ({ path }) =>
        Effect.gen(function* () {
          const { event } = yield* orApiError(webhooks.sendTest(yield* partner, yield* endpoint(path.id)))
          return { endpointId: path.id, eventId: event.id, eventType: "webhook.test" as const }
        })
      )
      .handle("recoverEndpoint", ({ path, payload }) =>
        Effect.gen(function* () {
          return yield* orApiError(webhooks.recover(yield* partner, yield* endpoint(path.id), payload))
        })
      )
      .handle("listEventTypes", () => Effect.succeed({ items: eventCatalog }))
      .handle("listDeliveries", ({ urlParams }) =>
        Effect.gen(function* () {
          // A malformed endpoint id names no endpoint, so no delivery is of it.
          const endpointId = urlParams.endpointId === undefined ? undefined : parseId(EndpointId)(urlParams.endpointId)
          if (endpointId !== undefined && Option.isNone(endpointId))
            return { deliveries: [], nextCursor: null, shown: 0 }
          const page = yield* orApiError(
            webhooks.listDeliveries(
              yield* partner,
              { endpointId: endpointId?.value, status: urlParams.status, eventType: urlParams.eventType },
              urlParams.limit,
              urlParams.cursor
            )
          )
          return {
            deliveries: page.deliveries.map(deliveryView),
            nextCursor: page.next === null ? null : encodeCursor(page.next),
            shown: page.deliveries.length
          }
        })
      )
      .handle("getDelivery", ({ path }) =>
        Effect.gen(function* () {
          const id = yield* orApiError(
            idOr(DeliveryId, path.id, () => new DeliveryNotFound({ message: `no delivery ${path.id}` }))
          )
          return deliveryDetailView(yield* orApiError(webhooks.getDelivery(yield* partner, id)))
        })
      )
      .handle("replayDelivery", ({ path }) =>
        Effect.gen(function* () {
          return deliveryView(
            yield* orApiError(
              webhooks.replay(
                yield* partner,
                yield* orApiError(
                  idOr(DeliveryId, path.id, () => new DeliveryNotFound({ message: `no delivery ${path.id}` }))
                )
              )
            )
          )
        })
      )
  })
)
