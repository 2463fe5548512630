/**
 * The `Idempotency-Key` header's rule: 1..128 printable ASCII characters (the spec's limit for the
 * payment-link and task-launch keys, applied to every change).
 */

/** The longest key accepted, in characters. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 128

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/

/** Why `raw` is no valid key, or `undefined` when it is one. */
export const idempotencyKeyProblem = (raw: string): string | undefined => {
  if (raw.length === 0) return "Idempotency-Key must not be empty"
  if (raw.length > MAX_IDEMPOTENCY_KEY_CHARS)
    return `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_CHARS} characters`
  if (!PRINTABLE_ASCII.test(raw)) return "Idempotency-Key must be printable ASCII characters"
  return undefined
}
