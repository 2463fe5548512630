/**
 * The Node signer must produce the very bytes core's Web Crypto signer does (receivers verify
 * with either), including non-ASCII secrets and bodies, and attempts built with it must verify.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  attemptRequest,
  attemptRequests,
  type ClaimedDelivery,
  verifyWebhook,
  webCryptoWebhookSigner
} from "@frank/core"
import { Effect, Exit } from "effect"
import { NodeWebhookSigner, nodeSignNow, nodeWebhookSigner } from "../src/webhooks/NodeWebhookSigner.js"
import type { DeliveryId, EndpointId } from "@frank/core"
import { testPartner } from "@frank/core/testing"

const encoder = new TextEncoder()

describe("NodeWebhookSigner", () => {
  it.effect("signs exactly as the Web Crypto signer", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [string, number, string]> = [
        ["whsec_abc", 1_700_000_000, '{"eventId":"e1"}'],
        ["whsec_ключ-ünïcode", 1, '{"text":"Привет, 世界"}'],
        ["s", 4_102_444_800, ""]
      ]
      for (const [secret, ts, body] of cases) {
        const bytes = encoder.encode(body)
        const node = yield* nodeWebhookSigner.sign(secret, ts, bytes)
        expect(node).toMatch(/^sha256=[0-9a-f]{64}$/)
        expect(node).toBe(yield* webCryptoWebhookSigner.sign(secret, ts, bytes))
        // The synchronous form the worker's batch path uses is the same signature.
        expect(nodeSignNow(secret, ts, bytes)).toBe(node)
        expect(yield* nodeWebhookSigner.signEach([{ secret, timestampSeconds: ts, body: bytes }])).toEqual([
          Exit.succeed(node)
        ])
      }
    })
  )

  it.effect("attempts signed on Node verify with the receiver kit, current and previous secret", () =>
    Effect.gen(function* () {
      const now = 1_800_000_000_000
      const claim = {
        partnerId: testPartner("p1"),
        id: "d1" as DeliveryId,
        endpointId: "ep1" as EndpointId,
        eventId: "e1",
        eventType: "webhook.test",
        payload: '{"eventId":"e1","eventType":"webhook.test"}',
        url: "https://receiver.example/hook",
        secret: "whsec_new",
        previousSecret: "whsec_old",
        previousSecretValidUntil: now + 60_000,
        state: { status: "delivering", attempts: 1, nextAttemptAt: null, leaseUntil: now + 60_000 },
        claimToken: "t"
      } satisfies ClaimedDelivery
      const request = yield* attemptRequest(claim, now).pipe(Effect.provide(NodeWebhookSigner))
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]))
      for (const secret of ["whsec_new", "whsec_old"]) {
        const verified = yield* Effect.promise(() => verifyWebhook({ secret, headers, rawBody: request.body, now }))
        expect(verified.ok).toBe(true)
      }
      expect(headers["x-service-signature"]).not.toBe(headers["x-service-signature-previous"])
      // Built with the whole batch signed in one loop (the worker's path), the request is the same one.
      const batch = yield* attemptRequests([claim], now).pipe(Effect.provide(NodeWebhookSigner))
      expect(batch).toEqual([Exit.succeed(request)])
    })
  )
})
