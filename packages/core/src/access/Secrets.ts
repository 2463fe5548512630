/**
 * Randomness and keyed hashing for credentials, on Web Crypto so core stays platform-neutral.
 * Only keyed hashes of keys and session tokens are stored; the pepper lives in configuration,
 * so a stolen database alone does not let anyone test guessed keys.
 */
import { Context, Effect, Layer, Redacted } from "effect"

export interface SecretsShape {
  /** `n` bytes from a CSPRNG. */
  readonly randomBytes: (n: number) => Effect.Effect<Uint8Array>
  /** HMAC-SHA256(pepper, value) as lowercase hex. */
  readonly keyedHash: (value: string) => Effect.Effect<string>
}

/** Secret hashing and random bytes with the host's pepper (Web Crypto here; NodeSecrets in adapters). */
export class Secrets extends Context.Tag("@frank/core/Secrets")<Secrets, SecretsShape>() {
  /** The portable Web Crypto secrets with the operator's `pepper` (on Node, `NodeSecrets.layer` of @frank/adapters). */
  static readonly layer = (pepper: Redacted.Redacted<string>) =>
    Layer.effect(
      Secrets,
      Effect.promise(async () => {
        const key = await crypto.subtle.importKey(
          "raw",
          new TextEncoder().encode(Redacted.value(pepper)),
          { name: "HMAC", hash: "SHA-256" },
          false,
          ["sign"]
        )
        const secrets: SecretsShape = {
          randomBytes: (n) => Effect.sync(() => crypto.getRandomValues(new Uint8Array(n))),
          keyedHash: (value) =>
            Effect.promise(async () =>
              toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(value))))
            )
        }
        return secrets
      })
    )
}

export const toHex = (bytes: Uint8Array): string => {
  let out = ""
  for (const b of bytes) out += b.toString(16).padStart(2, "0")
  return out
}

/** Standard base64 (RFC 4648 §4) with padding. */
export const toBase64 = (bytes: Uint8Array): string => {
  let bin = ""
  for (const b of bytes) bin += String.fromCharCode(b)
  return btoa(bin)
}

export const toBase64Url = (bytes: Uint8Array): string =>
  toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
