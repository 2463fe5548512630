/**
 * What a claimed key means for the request holding it (pure): run it, replay the stored answer,
 * or refuse it because the key was first used for another request or is still in use.
 */
import { IdempotencyKeyMismatch, IdempotencyRequestInProgress } from "./IdempotencyError.js"
import type { Claim, StoredAnswer } from "./IdempotencyStore.js"

/** The verdict on a request whose key was claimed. */
export type ClaimVerdict =
  | { readonly _tag: "Run" }
  | { readonly _tag: "Replay"; readonly answer: StoredAnswer }
  | { readonly _tag: "Refuse"; readonly error: IdempotencyKeyMismatch | IdempotencyRequestInProgress }

/** The verdict for a request with `fingerprint` whose key's claim found `claim`. */
export const claimVerdict = (claim: Claim, key: string, fingerprint: string): ClaimVerdict => {
  switch (claim._tag) {
    case "Fresh":
      return { _tag: "Run" }
    case "InProgress":
      return {
        _tag: "Refuse",
        error: new IdempotencyRequestInProgress({
          message: `a request with Idempotency-Key ${JSON.stringify(key)} is still being processed; retry shortly`
        })
      }
    case "Stored":
      return claim.fingerprint === fingerprint
        ? { _tag: "Replay", answer: claim.answer }
        : {
            _tag: "Refuse",
            error: new IdempotencyKeyMismatch({
              message: `Idempotency-Key ${JSON.stringify(key)} was already used with another method, path or body`
            })
          }
  }
}

/**
 * Whether an answer is kept for retries: the operation ran (2xx, or a 4xx of its own). Not kept:
 * a 400 of input validation, 401/403 (credentials), 429 and every 5xx, so the client may fix the
 * request and retry with the same key.
 */
export const isStoredStatus = (status: number, validationFailure: boolean): boolean =>
  (status >= 200 && status < 300) ||
  (status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429 && !validationFailure)
