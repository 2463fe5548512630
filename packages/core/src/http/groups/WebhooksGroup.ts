/**
 * Webhooks: endpoints (register, list, read one, change, delete, rotate the secret, send a test
 * event, recover failed deliveries in bulk), the event catalog, and the delivery log with replay
 * (spec "Endpoints → Webhooks"). All with an API key; reading needs `webhooks:read`, changing
 * `webhooks:manage`.
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { BoundedArray, NullableBoundedArray } from "../../internal/BoundedArray.js"
import { allEventTypes } from "../../events/EventType.js"
import { DeliveryStatus } from "../../webhooks/DeliveryState.js"
import { MAX_RECOVERED_PER_CALL, MAX_RECOVERY_WINDOW_DAYS } from "../../webhooks/recoveryWindow.js"
import { SignatureScheme } from "../../webhooks/signing/SignatureScheme.js"
import { MAX_RATE_PER_SECOND, MIN_RATE_PER_SECOND } from "../../webhooks/deliveryRate.js"
import { RESPONSE_SNIPPET_BYTES } from "../../webhooks/transport/responseSnippet.js"
import { BadRequest, Conflict, NotFound } from "../errors/ApiError.js"
import { QueryInt, requestParseOptions } from "../internal/coerce.js"
import { ApiKeyAuth, RequiredScope } from "../internal/Security.js"

const Timestamp = Schema.String.annotations({ description: "ISO 8601" })

const Scheme = SignatureScheme.annotations({
  identifier: "WebhookSignatureScheme",
  description:
    "How deliveries are signed: `frank` (X-Service-* headers), `standard-webhooks` (webhook-id, webhook-timestamp, " +
    "webhook-signature per the Standard Webhooks specification) or `both` header sets"
})
const rateDescription =
  `At most this many delivery attempts start in any one second (a sliding window, across every host); ` +
  `null: unlimited. An integer from ${MIN_RATE_PER_SECOND} to ${MAX_RATE_PER_SECOND}; other values answer 400 ` +
  "WEBHOOK_RATE_LIMIT_INVALID. Deliveries waiting for the rate are not attempts"
/** Any number or null: the service checks the range, so a bad value answers its own code. */
const RateLimit = Schema.NullOr(Schema.Number).annotations({ description: rateDescription })
/** An endpoint's health (docs/contract.md §5 "endpoint health"). */
const EndpointHealthFields = {
  lastSuccessAt: Schema.NullOr(Timestamp).annotations({
    description: "When a delivery to the endpoint last succeeded (to within a second); null: never"
  }),
  failingSince: Schema.NullOr(Timestamp).annotations({
    description: "The first dead-lettered delivery after the last success; null while none"
  }),
  disabledAt: Schema.NullOr(Timestamp).annotations({
    description: "When the endpoint became inactive (paused with PATCH, or for failing); null while active"
  }),
  disabledReason: Schema.NullOr(Schema.Literal("failing")).annotations({
    description:
      "`failing`: paused automatically because deliveries kept failing (by default: at least 10 dead-lettered deliveries and no success since the first of them, 5 days ago or more); null otherwise. PATCH `active: true` re-enables it and clears the reason"
  })
}

export const EndpointView = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  eventTypes: Schema.Array(Schema.String).annotations({
    description: "Subscribed event types (all of them when registered without `eventTypes`)"
  }),
  subscribedToAll: Schema.Boolean.annotations({
    description: "True when the endpoint receives every event type, including types added later"
  }),
  active: Schema.Boolean,
  previousSecretValidUntil: Schema.NullOr(Timestamp).annotations({
    description: "Until when the previous secret still signs (6 h after a rotation)"
  }),
  signatureScheme: Scheme,
  rateLimitPerSecond: Schema.NullOr(Schema.Int).annotations({ description: rateDescription }),
  ...EndpointHealthFields,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "WebhookEndpoint" })
export type EndpointView = typeof EndpointView.Type

export const CreatedEndpoint = Schema.Struct({
  ...EndpointView.fields,
  secret: Schema.String.annotations({
    description:
      "The signing secret, `whsec_` + standard base64 of 32 bytes (the Standard Webhooks form), shown only now"
  })
}).annotations({ identifier: "CreatedWebhookEndpoint" })

export const EndpointList = Schema.Struct({ items: Schema.Array(EndpointView) }).annotations({
  identifier: "WebhookEndpointList"
})

/** At most one of each catalog type: a longer list can only repeat one. */
const eventTypesMessage = `must list at most ${allEventTypes.length} event types`
const SubscribedTypes = BoundedArray(Schema.String, allEventTypes.length, eventTypesMessage)
const NullableSubscribedTypes = NullableBoundedArray(Schema.String, allEventTypes.length, eventTypesMessage)

export const CreateEndpointRequest = Schema.Struct({
  url: Schema.String.annotations({ description: "Public HTTPS URL; internal hosts and IP literals are refused" }),
  eventTypes: Schema.optionalWith(SubscribedTypes, { exact: true }).annotations({
    description: "Event types to receive; omitted: all"
  }),
  signatureScheme: Schema.optional(Scheme).annotations({ description: "Omitted: `frank`" }),
  rateLimitPerSecond: Schema.optional(RateLimit).annotations({ description: `Omitted: unlimited. ${rateDescription}` })
}).annotations({ identifier: "CreateWebhookEndpointRequest", ...requestParseOptions })

export const UpdateEndpointRequest = Schema.Struct({
  url: Schema.optional(Schema.String),
  eventTypes: Schema.optionalWith(NullableSubscribedTypes, { exact: true }).annotations({
    description: "null: all event types"
  }),
  active: Schema.optional(Schema.Boolean).annotations({
    description:
      "false pauses deliveries; they resume when set back to true (which also re-enables an endpoint paused for failing)"
  }),
  signatureScheme: Schema.optional(Scheme).annotations({
    description:
      "A Standard Webhooks scheme needs a secret issued since that scheme exists: an older one answers 409 " +
      "WEBHOOK_SECRET_ROTATION_REQUIRED until the secret is rotated"
  }),
  rateLimitPerSecond: Schema.optional(RateLimit)
}).annotations({ identifier: "UpdateWebhookEndpointRequest", ...requestParseOptions })

export const DeletedEndpoint = Schema.Struct({ id: Schema.String, deleted: Schema.Boolean }).annotations({
  identifier: "DeletedWebhookEndpoint"
})

export const RotatedSecret = Schema.Struct({
  id: Schema.String,
  secret: Schema.String.annotations({
    description: "The new signing secret (`whsec_` + standard base64 of 32 bytes), shown only now"
  }),
  previousSecretValidUntil: Timestamp
}).annotations({ identifier: "RotatedWebhookSecret" })

export const TestEventQueued = Schema.Struct({
  endpointId: Schema.String,
  eventId: Schema.String,
  eventType: Schema.Literal("webhook.test")
}).annotations({ identifier: "WebhookTestQueued" })

export const DeliveryView = Schema.Struct({
  id: Schema.String,
  endpointId: Schema.String,
  eventId: Schema.String,
  eventType: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Number.annotations({ description: "Attempts in the current budget (a replay starts a new one)" }),
  responseCodes: Schema.Array(Schema.NullOr(Schema.Number)).annotations({
    description:
      "HTTP status of every attempt in order; null when no answer came (timeout, connection error, outcome unknown)"
  }),
  lastError: Schema.NullOr(Schema.String),
  nextAttemptAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "WebhookDelivery" })
export type DeliveryView = typeof DeliveryView.Type

export const DeliveryPageView = Schema.Struct({
  deliveries: Schema.Array(DeliveryView),
  nextCursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as `cursor` for the next (older) page; null on the last page"
  }),
  shown: Schema.Number.annotations({ description: "Rows in this page" })
}).annotations({ identifier: "WebhookDeliveryPage" })

export const DeliveryAttemptView = Schema.Struct({
  attempt: Schema.Number.annotations({ description: "The attempt's number in its budget (a replay starts a new one)" }),
  startedAt: Timestamp,
  durationMs: Schema.Number.annotations({ description: "From the request's start to the answer (or the failure)" }),
  responseStatus: Schema.NullOr(Schema.Number).annotations({ description: "null when no answer came" }),
  responseBody: Schema.NullOr(Schema.String).annotations({
    description: `The first ${RESPONSE_SNIPPET_BYTES} bytes of the receiver's response body as UTF-8 text (never its headers); null when none was read`
  }),
  error: Schema.NullOr(Schema.String)
}).annotations({ identifier: "WebhookDeliveryAttempt" })

export const DeliveryDetailView = Schema.Struct({
  ...DeliveryView.fields,
  payload: Schema.Unknown.annotations({ description: "The event's envelope exactly as sent (parsed JSON)" }),
  attemptLog: Schema.Array(DeliveryAttemptView).annotations({ description: "Every attempt, oldest first" })
}).annotations({ identifier: "WebhookDeliveryDetail" })
export type DeliveryDetailView = typeof DeliveryDetailView.Type

export const DeliveriesQuery = Schema.Struct({
  endpointId: Schema.optional(Schema.String),
  status: Schema.optional(DeliveryStatus),
  eventType: Schema.optional(Schema.Literal(...allEventTypes)).annotations({
    description: "Only deliveries of this event type"
  }),
  limit: Schema.optional(QueryInt(1, 100)),
  cursor: Schema.optional(Schema.String)
}).annotations(requestParseOptions)

export const RecoverRequest = Schema.Struct({
  since: Schema.String.annotations({
    description:
      "ISO 8601 date-time with a time zone, or a date (midnight UTC): deliveries created at or after it. Not before the retention period (FRANK_WEBHOOK_RETENTION_DAYS, default 30 days)"
  }),
  until: Schema.optional(Schema.String).annotations({
    description: `ISO 8601, as since: deliveries created before it; omitted: now. At most ${MAX_RECOVERY_WINDOW_DAYS} days after since`
  })
}).annotations({ identifier: "RecoverWebhookDeliveriesRequest", ...requestParseOptions })

export const RecoveryView = Schema.Struct({
  requeued: Schema.Number.annotations({
    description: `Deliveries put back in the queue by this call (oldest first, at most ${MAX_RECOVERED_PER_CALL.toLocaleString("en")}), each under the replay rules`
  }),
  remaining: Schema.Number.annotations({
    description: "Deliveries of the window still dead_lettered or uncertain: call again to requeue them"
  })
}).annotations({ identifier: "WebhookRecovery" })
export const EventTypeEntry = Schema.Struct({
  type: Schema.String.annotations({ description: "The event type, as in `eventType` and endpoint subscriptions" }),
  description: Schema.String.annotations({ description: "When it is emitted" }),
  schema: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "JSON Schema (draft-07) of the event's `data`"
  }),
  example: Schema.Unknown.annotations({ description: "An example `data`, valid against `schema`" })
}).annotations({ identifier: "WebhookEventType" })

export const EventTypeList = Schema.Struct({ items: Schema.Array(EventTypeEntry) }).annotations({
  identifier: "WebhookEventTypeList"
})

const idParam = HttpApiSchema.param("id", Schema.String)

/** The partner API's webhook endpoints (endpoints, deliveries, replay, event types). */
export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.get("listEndpoints", "/v1/webhooks/endpoints")
      .addSuccess(EndpointList)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:read")
  )
  .add(
    HttpApiEndpoint.get("getEndpoint")`/v1/webhooks/endpoints/${idParam}`
      .addSuccess(EndpointView)
      .addError(NotFound)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:read")
  )
  .add(
    HttpApiEndpoint.post("createEndpoint", "/v1/webhooks/endpoints")
      .setPayload(CreateEndpointRequest)
      .addSuccess(CreatedEndpoint, { status: 201 })
      .addError(BadRequest)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:manage")
  )
  .add(
    HttpApiEndpoint.patch("updateEndpoint")`/v1/webhooks/endpoints/${idParam}`
      .setPayload(UpdateEndpointRequest)
      .addSuccess(EndpointView)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:manage")
  )
  .add(
    HttpApiEndpoint.del("deleteEndpoint")`/v1/webhooks/endpoints/${idParam}`
      .addSuccess(DeletedEndpoint)
      .addError(NotFound)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:manage")
  )
  .add(
    HttpApiEndpoint.post("rotateSecret")`/v1/webhooks/endpoints/${idParam}/rotate-secret`
      .addSuccess(RotatedSecret)
      .addError(NotFound)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:manage")
  )
  .add(
    HttpApiEndpoint.post("sendTest")`/v1/webhooks/endpoints/${idParam}/test`
      .addSuccess(TestEventQueued)
      .addError(NotFound)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:manage")
  )
  .add(
    HttpApiEndpoint.post("recoverEndpoint")`/v1/webhooks/endpoints/${idParam}/recover`
      .setPayload(RecoverRequest)
      .addSuccess(RecoveryView)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:manage")
      .annotate(
        OpenApi.Description,
        "Requeues every dead_lettered or uncertain delivery of the endpoint created in [since, until), one new attempt now under the same eventId, the attempts counting on from the earlier ones (a failing one continues its retry schedule where it stopped). Deliveries already queued are left alone, so calling again requeues only what failed since."
      )
  )
  .add(
    HttpApiEndpoint.get("listEventTypes", "/v1/webhooks/event-types")
      .addSuccess(EventTypeList)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:read")
  )
  .add(
    HttpApiEndpoint.get("listDeliveries", "/v1/webhooks/deliveries")
      .setUrlParams(DeliveriesQuery)
      .addSuccess(DeliveryPageView)
      .addError(BadRequest)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:read")
  )
  .add(
    HttpApiEndpoint.get("getDelivery")`/v1/webhooks/deliveries/${idParam}`
      .addSuccess(DeliveryDetailView)
      .addError(NotFound)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:read")
  )
  .add(
    HttpApiEndpoint.post("replayDelivery")`/v1/webhooks/deliveries/${idParam}/replay`
      .addSuccess(DeliveryView)
      .addError(NotFound)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "webhooks:manage")
  )
  .annotate(OpenApi.Title, "Webhooks") {}
