/**
 * Webhooks with every change recorded: endpoints (create, update, pause, resume, rotate, delete,
 * recover, test) and replays, each in the change's transaction. A rotation names the field
 * `secret`, never its value.
 */
import type { WebhooksShape } from "../../webhooks/Webhooks.js"
import type { AuditLogShape } from "../AuditLog.js"
import { fieldsOf } from "./fieldsOf.js"

const endpoint = (id: string) => ({ type: "webhook_endpoint", id })

/** An update that only sets `active` is a pause or a resume. */
const updateAction = (change: { readonly active?: boolean | undefined }, fields: ReadonlyArray<string>) =>
  fields.length === 1 && change.active !== undefined
    ? change.active
      ? "webhook_endpoint.resumed"
      : "webhook_endpoint.paused"
    : "webhook_endpoint.updated"

/** `webhooks` whose changes `log` records. */
export const auditedWebhooks = (webhooks: WebhooksShape, log: AuditLogShape): WebhooksShape => ({
  ...webhooks,
  createEndpoint: (partnerId, input) =>
    log.recorded(
      partnerId,
      (e) => ({
        action: "webhook_endpoint.created",
        target: endpoint(e.id),
        changes: [...fieldsOf(input), "secret"]
      }),
      webhooks.createEndpoint(partnerId, input)
    ),
  updateEndpoint: (partnerId, id, change) => {
    const fields = fieldsOf(change)
    return log.recorded(
      partnerId,
      { action: updateAction(change, fields), target: endpoint(id), changes: fields },
      webhooks.updateEndpoint(partnerId, id, change)
    )
  },
  deleteEndpoint: (partnerId, id) =>
    log.recorded(
      partnerId,
      { action: "webhook_endpoint.deleted", target: endpoint(id), changes: ["deletedAt"] },
      webhooks.deleteEndpoint(partnerId, id)
    ),
  rotateSecret: (partnerId, id) =>
    log.recorded(
      partnerId,
      {
        action: "webhook_endpoint.secret_rotated",
        target: endpoint(id),
        changes: ["secret", "previousSecretValidUntil"]
      },
      webhooks.rotateSecret(partnerId, id)
    ),
  sendTest: (partnerId, id) =>
    log.recorded(
      partnerId,
      { action: "webhook_endpoint.tested", target: endpoint(id), changes: [] },
      webhooks.sendTest(partnerId, id)
    ),
  recover: (partnerId, id, request) =>
    log.recorded(
      partnerId,
      { action: "webhook_endpoint.recovered", target: endpoint(id), changes: ["deliveries"] },
      webhooks.recover(partnerId, id, request)
    ),
  replay: (partnerId, id) =>
    log.recorded(
      partnerId,
      { action: "webhook_delivery.replayed", target: { type: "webhook_delivery", id }, changes: ["status"] },
      webhooks.replay(partnerId, id)
    )
})
