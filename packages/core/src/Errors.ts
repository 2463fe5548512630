/**
 * The `Errors` namespace: the error every store port fails with, and the fields every coded
 * domain error carries.
 */
export { StoreError, storeErrorFor } from "./StoreError.js"
export { codedErrorFields } from "./codedError.js"
