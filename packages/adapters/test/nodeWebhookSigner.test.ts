/**
 * The Node signer must produce the very bytes core's Web Crypto signer does (receivers verify
 * with either), including non-ASCII secrets and bodies, in both schemes, and attempts built with
 * it must verify: Frank's with the receiver kit, Standard Webhooks with the specification's
 * library and Svix's (libraries no one here wrote).
 */
import { describe, expect, it, vi } from "@effect/vitest"
import { type Ids, WebhookReceiver, Webhooks, WebhookSigning } from "@frank/core"
import { Effect, Exit } from "effect"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { Webhook as SvixWebhook } from "svix"
import { NodeWebhookSigner } from "../src/index.js"
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
        const node = yield* NodeWebhookSigner.make.sign(secret, ts, bytes)
        expect(node).toMatch(/^sha256=[0-9a-f]{64}$/)
        expect(node).toBe(yield* WebhookSigning.webCryptoWebhookSigner.sign(secret, ts, bytes))
        // The synchronous form the worker's batch path uses is the same signature.
        expect(NodeWebhookSigner.signNow(secret, ts, bytes)).toBe(node)
        expect(yield* NodeWebhookSigner.make.signEach([{ secret, timestampSeconds: ts, body: bytes }])).toEqual([
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
        id: "d1" as Ids.DeliveryId,
        endpointId: "ep1" as Ids.EndpointId,
        eventId: "e1",
        eventType: "webhook.test",
        payload: '{"eventId":"e1","eventType":"webhook.test"}',
        url: "https://receiver.example/hook",
        secret: "whsec_new",
        previousSecret: "whsec_old",
        previousSecretValidUntil: now + 60_000,
        signatureScheme: "frank",
        state: { status: "delivering", attempts: 1, nextAttemptAt: null, leaseUntil: now + 60_000 },
        claimToken: "t",
        createdAt: 0
      } satisfies Webhooks.ClaimedDelivery
      const request = yield* Webhooks.attemptRequest(claim, now).pipe(Effect.provide(NodeWebhookSigner.layer))
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]))
      for (const secret of ["whsec_new", "whsec_old"]) {
        const verified = yield* Effect.promise(() =>
          WebhookReceiver.verifyWebhook({ secret, headers, rawBody: request.body, now })
        )
        expect(verified.ok).toBe(true)
      }
      expect(headers["x-service-signature"]).not.toBe(headers["x-service-signature-previous"])
      // Built with the whole batch signed in one loop (the worker's path), the request is the same one.
      const batch = yield* Webhooks.attemptRequests([claim], now).pipe(Effect.provide(NodeWebhookSigner.layer))
      expect(batch).toEqual([Exit.succeed(request)])
    })
  )

  it.effect("signs Standard Webhooks exactly as the Web Crypto signer, new and base64url secrets alike", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [string, string, number, string]> = [
        [`whsec_${Buffer.alloc(32, 1).toString("base64")}`, "msg_1", 1_700_000_000, '{"eventId":"e1"}'],
        // An endpoint's secret from before: base64url without padding, with - and _.
        [`whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i)).toString("base64url")}`, "e", 1, ""],
        [`whsec_${Buffer.alloc(24, 9).toString("base64")}`, "ünï", 4_102_444_800, '{"text":"Привет"}']
      ]
      for (const [secret, messageId, ts, body] of cases) {
        const bytes = encoder.encode(body)
        const node = yield* NodeWebhookSigner.make.signStandard(secret, messageId, ts, bytes)
        expect(node).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
        expect(node).toBe(yield* WebhookSigning.webCryptoWebhookSigner.signStandard(secret, messageId, ts, bytes))
        expect(NodeWebhookSigner.signStandardNow(secret, messageId, ts, bytes)).toBe(node)
        expect(
          yield* NodeWebhookSigner.make.signStandardEach([{ secret, messageId, timestampSeconds: ts, body: bytes }])
        ).toEqual([Exit.succeed(node)])
      }
      // A secret that is not base64 fails its own signature, on both signers.
      const [bad] = yield* NodeWebhookSigner.make.signStandardEach([
        { secret: "whsec_not base64!", messageId: "m", timestampSeconds: 1, body: new Uint8Array() }
      ])
      expect(bad !== undefined && Exit.isFailure(bad)).toBe(true)
      expect(
        Exit.isFailure(
          yield* Effect.exit(
            WebhookSigning.webCryptoWebhookSigner.signStandard("whsec_not base64!", "m", 1, new Uint8Array())
          )
        )
      ).toBe(true)
    })
  )

  it.effect("standard and both attempts verify with the standardwebhooks and svix libraries", () =>
    Effect.gen(function* () {
      const now = 1_800_000_000_000
      const current = `whsec_${Buffer.alloc(32, 3).toString("base64")}`
      const previous = `whsec_${Buffer.alloc(32, 4).toString("base64")}`
      const claim = (signatureScheme: WebhookSigning.SignatureScheme): Webhooks.ClaimedDelivery => ({
        partnerId: testPartner("p1"),
        id: "d1" as Ids.DeliveryId,
        endpointId: "ep1" as Ids.EndpointId,
        eventId: "0b7c6a52-8f0e-4c31-9d7a-2f1b9c2c1a01",
        eventType: "webhook.test",
        payload: '{"eventId":"0b7c6a52-8f0e-4c31-9d7a-2f1b9c2c1a01","eventType":"webhook.test"}',
        url: "https://receiver.example/hook",
        secret: current,
        previousSecret: previous,
        previousSecretValidUntil: now + 60_000,
        signatureScheme,
        state: { status: "delivering", attempts: 1, nextAttemptAt: null, leaseUntil: now + 60_000 },
        claimToken: "t",
        createdAt: 0
      })
      const [standard, both] = yield* Effect.forEach(["standard-webhooks", "both"] as const, (scheme) =>
        Webhooks.attemptRequest(claim(scheme), now).pipe(Effect.provide(NodeWebhookSigner.layer))
      )
      if (standard === undefined || both === undefined) return expect.unreachable()
      expect(Object.keys(standard.headers).some((h) => h.startsWith("X-Service"))).toBe(false)
      expect(standard.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/)
      expect(both.headers["X-Service-Signature"]).toMatch(/^sha256=/)
      const payload = new TextDecoder().decode(standard.body)
      vi.setSystemTime(now)
      try {
        for (const request of [standard, both])
          for (const secret of [current, previous]) {
            expect(() => new StandardWebhook(secret).verify(payload, request.headers)).not.toThrow()
            expect(() => new SvixWebhook(secret).verify(payload, request.headers)).not.toThrow()
          }
        expect(() =>
          new StandardWebhook(`whsec_${Buffer.alloc(32, 5).toString("base64")}`).verify(payload, both.headers)
        ).toThrow()
      } finally {
        vi.useRealTimers()
      }
    })
  )
})
