/**
 * The `Ids` namespace: the `Ids` service and the branded entity ids. How ids are derived and the
 * service's shape stay in internal/ids.ts.
 */
export { Ids } from "./internal/ids.js"
export {
  DeliveryId,
  EndpointId,
  InvoiceId,
  KeyId,
  parseId,
  PartnerId,
  PaymentId,
  StoredFileId,
  TaskId
} from "./EntityIds.js"
