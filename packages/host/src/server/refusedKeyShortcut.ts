/**
 * Refusals of an API key already over its per-key limit, answered where the request arrives
 * (node:http), before the API's stack runs. The API reports every 429 (`RateLimitRefusals`);
 * a refusal by the key's own limit puts the key here, and until that window ends (or the key
 * expires) every later request presenting it on a route the per-key limit counts is refused with
 * the same 429 envelope and headers, at the cost of a SHA-256 and a map lookup
 * (docs/performance.md). Keys are held by their digest, never in clear.
 *
 * Every 429, early or not, is counted by limit and route template; early refusals are logged
 * once per key and window with their count (`sweep`), not one line each. A key revoked or
 * changed through this host leaves at once, so its next request reaches the API (401).
 */
import { createHash } from "node:crypto"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { type Access, type Ids, RateLimit } from "@frank/core"
import type { Context } from "effect"

type AccessShape = Context.Tag.Service<typeof Access.Access>
import { apiKeyOfHeaders } from "@frank/core/http"
import { type Clock, DateTime, Effect } from "effect"
import { wrapRequestListeners } from "./requestListeners.js"

export interface ShortcutOptions {
  readonly clock: Clock.Clock
  /** Counts one 429 by the limit that refused it and the route template. */
  readonly rateLimited: (limit: string, route: string) => void
  /** The route template of a concrete path (a bounded metric label). */
  readonly routeOf: (method: string, path: string) => string
}

interface Held {
  readonly verdict: RateLimit.LimitVerdict
  /** The refused answer's RateLimit-Policy, repeated on every early refusal. */
  readonly policy: string
  readonly keyId: Ids.KeyId
  readonly partnerId: Ids.PartnerId
  /** Answered here until then: the window's end, or the key's expiry if sooner. */
  readonly untilMs: number
  /** Requests refused here in this window. */
  early: number
}

/** The longest window a refusal names (every limit counts per minute). */
const LONGEST_WINDOW_MS = 60_000

const digest = (raw: string) => createHash("sha256").update(raw).digest("base64")

const logEarly = (held: Held) =>
  Effect.logWarning("an API key over its per-key limit kept calling; refused before the API").pipe(
    Effect.annotateLogs({
      partnerId: held.partnerId,
      keyId: held.keyId,
      refused: held.early,
      limit: held.verdict.limit,
      windowEnd: DateTime.formatIso(DateTime.unsafeMake(held.verdict.resetAtMs))
    })
  )

export const makeRefusedKeys = (options: ShortcutOptions) => {
  const { clock } = options
  const held = new Map<string, Held>()
  const digestOfKey = new Map<Ids.KeyId, string>()
  /** Released keys whose early refusals are still to be logged. */
  const toLog: Array<Held> = []
  /** Keys revoked here, until when: a request in flight during the revocation must not put one back. */
  const revoked = new Map<Ids.KeyId, number>()
  const release = (keyDigest: string) => {
    const found = held.get(keyDigest)
    if (found === undefined) return
    held.delete(keyDigest)
    digestOfKey.delete(found.keyId)
    if (found.early > 0) toLog.push(found)
  }
  const listener: Context.Tag.Service<typeof RateLimit.RateLimitRefusals> = {
    refused: ({ route, verdict, key, policy }) => {
      options.rateLimited(verdict.rule.name, route)
      if (key === undefined || key.raw.length === 0 || revoked.has(key.id)) return
      const keyDigest = digest(key.raw)
      release(keyDigest)
      const untilMs = Math.min(verdict.resetAtMs, key.expiresAt ?? Number.POSITIVE_INFINITY)
      held.set(keyDigest, {
        verdict,
        policy: policy ?? RateLimit.policyField([verdict]),
        keyId: key.id,
        partnerId: key.partnerId,
        untilMs,
        early: 0
      })
      digestOfKey.set(key.id, keyDigest)
    }
  }
  /** The partner's key `keyId` is answered by the API again from its next request. */
  const forget = (partnerId: Ids.PartnerId, keyId: Ids.KeyId) => {
    const keyDigest = digestOfKey.get(keyId)
    if (keyDigest !== undefined && held.get(keyDigest)?.partnerId === partnerId) release(keyDigest)
  }
  /** The key `keyId` was revoked: released, and kept out while a refusal could still name it. */
  const revoke = (partnerId: Ids.PartnerId, keyId: Ids.KeyId) => {
    forget(partnerId, keyId)
    revoked.set(keyId, clock.unsafeCurrentTimeMillis() + LONGEST_WINDOW_MS)
  }
  /** Releases the keys whose window (or life) has ended and logs their early refusals. */
  const sweep = Effect.suspend(() => {
    const now = clock.unsafeCurrentTimeMillis()
    for (const [keyDigest, h] of held) if (h.untilMs <= now) release(keyDigest)
    for (const [keyId, until] of revoked) if (until <= now) revoked.delete(keyId)
    return Effect.forEach(toLog.splice(0), logEarly, { discard: true })
  })
  /** Answers the request if its key is known to be over its limit; true when it did. */
  const answer = (request: IncomingMessage, response: ServerResponse): boolean => {
    if (held.size === 0) return false
    const path = request.url?.split("?")[0] ?? ""
    if (!RateLimit.countsAgainstKeyLimit(path)) return false
    const raw = apiKeyOfHeaders(request.headers)
    if (raw.length === 0) return false
    const refusal = held.get(digest(raw))
    const now = clock.unsafeCurrentTimeMillis()
    if (refusal === undefined || refusal.untilMs <= now) return false
    refusal.early++
    options.rateLimited(refusal.verdict.rule.name, options.routeOf(request.method ?? "GET", path))
    writeRefusal(response, refusal, Math.max(1, Math.ceil((refusal.verdict.resetAtMs - now) / 1000)))
    // A GET has no body; anything a client still sends is read and dropped.
    request.resume()
    return true
  }
  return { listener, answer, forget, revoke, sweep }
}

/** The API's 429 envelope and headers, written straight to node:http. */
const writeRefusal = (response: ServerResponse, { verdict, policy }: Held, seconds: number) => {
  const body = JSON.stringify({
    statusCode: 429,
    message: RateLimit.rateLimitedMessage(verdict, seconds),
    code: "RATE_LIMITED"
  })
  response.writeHead(429, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "ratelimit-policy": policy,
    ratelimit: RateLimit.limitField({ ...verdict, remaining: 0 }, seconds),
    "ratelimit-limit": String(verdict.limit),
    "ratelimit-remaining": "0",
    "ratelimit-reset": String(seconds),
    "retry-after": String(seconds)
  })
  response.end(body)
}

/** Access whose revocations and changes release the key from the shortcut at once. */
export const releasingOnChange = (
  access: AccessShape,
  shortcut: {
    readonly forget: (partnerId: Ids.PartnerId, keyId: Ids.KeyId) => void
    readonly revoke: (partnerId: Ids.PartnerId, keyId: Ids.KeyId) => void
  }
): AccessShape => ({
  ...access,
  // `true`: revoked now, so the key is the partner's (another partner's id changes nothing).
  revokeKey: (partnerId, id, reason) =>
    Effect.tap(access.revokeKey(partnerId, id, reason), (done) =>
      Effect.sync(() => (done ? shortcut.revoke(partnerId, id) : shortcut.forget(partnerId, id)))
    ),
  changeKey: (partnerId, id, cmd) =>
    Effect.tap(access.changeKey(partnerId, id, cmd), () => Effect.sync(() => shortcut.forget(partnerId, id)))
})

/** `createServer` whose request listeners first let `answer` refuse known-refused keys. */
export const withRefusedKeys =
  (createServer: () => Server, answer: (request: IncomingMessage, response: ServerResponse) => boolean) => (): Server =>
    wrapRequestListeners(createServer(), (listener) => (request, response) => {
      if (!answer(request, response)) listener(request, response)
    })
