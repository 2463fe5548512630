/**
 * Checks event bodies against the published event catalog (`GET /v1/webhooks/event-types`) with
 * Ajv, a JSON Schema validator no one here wrote: the envelope (spec "Body envelope") and `data`
 * against its type's JSON Schema. Used by the catalog test and by the suites that collect what the
 * engine emits (the seeded simulation, the endpoint-health contract).
 */
import { Events } from "@frank/core"
import { Ajv } from "ajv"

const ajv = new Ajv({ allErrors: true, strict: true })
const validators = new Map(Events.eventCatalog.map((entry) => [entry.type as string, ajv.compile(entry.schema)]))

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Why `data` of `type` does not match the catalog; empty when it does. */
export const dataViolations = (type: string, data: unknown): ReadonlyArray<string> => {
  const validate = validators.get(type)
  if (validate === undefined) return [`${type}: not in the event catalog`]
  if (validate(data)) return []
  return (validate.errors ?? []).map((e) => `${type}: data${e.instancePath} ${e.message ?? "is invalid"}`)
}

/** Why an event body (the signed JSON as sent) does not match the spec's envelope and the catalog. */
export const eventViolations = (payload: string): ReadonlyArray<string> => {
  const body = JSON.parse(payload) as Record<string, unknown>
  const type = String(body.eventType)
  const envelope = [
    typeof body.eventId === "string" && UUID.test(body.eventId) ? undefined : "eventId is not a UUID",
    typeof body.occurredAt === "string" && !Number.isNaN(Date.parse(body.occurredAt))
      ? undefined
      : "occurredAt is not a time",
    typeof body.partnerId === "string" ? undefined : "partnerId is not a string",
    body.schemaVersion === 1 ? undefined : "schemaVersion is not 1",
    Object.keys(body).sort().join() === "data,eventId,eventType,occurredAt,partnerId,schemaVersion"
      ? undefined
      : `envelope fields ${Object.keys(body).sort().join()}`
  ].flatMap((v) => (v === undefined ? [] : [`${type}: ${v}`]))
  return [...envelope, ...dataViolations(type, body.data)]
}
