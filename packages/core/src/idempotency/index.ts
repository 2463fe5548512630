/**
 * Idempotency: every change may carry an `Idempotency-Key`; a retry with the same key, method,
 * path and body gets the first answer again and runs nothing. The store port, the key rule, the
 * request fingerprint, `runOnce` for callers outside HTTP and the retention sweep.
 */
export { type ClaimVerdict, claimVerdict, isStoredStatus } from "./claimRule.js"
export { CurrentIdempotencyKey } from "./CurrentIdempotencyKey.js"
export { canonicalBody, requestFingerprint, sha256Hex } from "./fingerprint.js"
export { IdempotencyKeyMismatch, IdempotencyRequestInProgress } from "./IdempotencyError.js"
export { idempotencyKeyProblem, MAX_IDEMPOTENCY_KEY_CHARS } from "./IdempotencyKey.js"
export {
  type Claim,
  type IdempotentRequest,
  IdempotencyStore,
  type IdempotencyStoreShape,
  type StoredAnswer
} from "./IdempotencyStore.js"
export { IDEMPOTENCY_RETENTION_MS, IDEMPOTENCY_SWEEP_BATCH, sweepExpiredAnswers } from "./retention.js"
export { type Once, runOnce } from "./runOnce.js"
