/**
 * Branded ids of the engine's entities. An id from outside (a path, a stored session or key) is
 * decoded once at the HTTP edge; ports and services take the branded type, so no store checks
 * the shape of an id again. All are UUIDs as `Ids` issues them (any version, either case).
 */
import { type Option, Schema } from "effect"

/** A UUID in either case, lowercased: stores compare ids as text, as `Ids` writes them. */
const uuidBrand = <const B extends string>(brand: B) =>
  Schema.Lowercase.pipe(Schema.compose(Schema.UUID), Schema.brand(brand))

/** A partner's id: a branded lowercase UUID; decode it once where it enters. */
export const PartnerId = uuidBrand("PartnerId")
export type PartnerId = typeof PartnerId.Type
/** An API key's id: a branded lowercase UUID. */
export const KeyId = uuidBrand("KeyId")
export type KeyId = typeof KeyId.Type
/** A webhook endpoint's id: a branded lowercase UUID. */
export const EndpointId = uuidBrand("EndpointId")
export type EndpointId = typeof EndpointId.Type
/** A webhook delivery's id: a branded lowercase UUID. */
export const DeliveryId = uuidBrand("DeliveryId")
export type DeliveryId = typeof DeliveryId.Type
/** A generation task's id: a branded lowercase UUID. */
export const TaskId = uuidBrand("TaskId")
export type TaskId = typeof TaskId.Type
/** An invoice's id: a branded lowercase UUID. */
export const InvoiceId = uuidBrand("InvoiceId")
export type InvoiceId = typeof InvoiceId.Type
/** A payment's id: a branded lowercase UUID. */
export const PaymentId = uuidBrand("PaymentId")
export type PaymentId = typeof PaymentId.Type
/** A stored file's id: a branded lowercase UUID. */
export const StoredFileId = uuidBrand("StoredFileId")
export type StoredFileId = typeof StoredFileId.Type

/**
 * The id `raw` names, or none when it is not one: a malformed id names nothing, so the caller
 * answers what it answers for a missing one.
 */
export const parseId =
  <A>(schema: Schema.Schema<A, string>) =>
  (raw: string): Option.Option<A> =>
    Schema.decodeUnknownOption(schema)(raw)
