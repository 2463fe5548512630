/**
 * Secrets on node:crypto. Core's default uses Web Crypto, whose HMAC runs as an async job on the
 * libuv thread pool; on Node the synchronous HMAC saves a thread hop on every authenticated
 * request (docs/performance.md, bench/api).
 */
import { createHmac, randomBytes } from "node:crypto"
import { Secrets } from "@frank/core"
import { Effect, Layer, Redacted } from "effect"

export const NodeSecrets = (pepper: Redacted.Redacted<string>) =>
  Layer.sync(Secrets, () => {
    const key = Buffer.from(Redacted.value(pepper), "utf8")
    return {
      randomBytes: (n) => Effect.sync(() => new Uint8Array(randomBytes(n))),
      keyedHash: (value) => Effect.sync(() => createHmac("sha256", key).update(value, "utf8").digest("hex"))
    }
  })
