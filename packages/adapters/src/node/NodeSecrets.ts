/**
 * Secrets on node:crypto. Core's default uses Web Crypto, whose HMAC runs as an async job on the
 * libuv thread pool; on Node the synchronous HMAC saves a thread hop on every authenticated
 * request (docs/performance.md, bench/api).
 */
import { createHmac, randomBytes } from "node:crypto"
import { Access } from "@frank/core"
import { type Context, Effect, Layer, Redacted } from "effect"

/** Secrets keyed by `pepper` (the HMAC key of stored API-key hashes). */
export const make = (pepper: Redacted.Redacted<string>): Context.Tag.Service<typeof Access.Secrets> => {
  const key = Buffer.from(Redacted.value(pepper), "utf8")
  return {
    randomBytes: (n) => Effect.sync(() => new Uint8Array(randomBytes(n))),
    keyedHash: (value) => Effect.sync(() => createHmac("sha256", key).update(value, "utf8").digest("hex"))
  }
}

/** `Secrets` on node:crypto, keyed by `pepper`. */
export const layer = (pepper: Redacted.Redacted<string>): Layer.Layer<Access.Secrets> =>
  Layer.sync(Access.Secrets, () => make(pepper))
