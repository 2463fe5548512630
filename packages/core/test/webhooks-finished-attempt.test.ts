/**
 * What an attempt's outcome records: the attempt row (status, readable error, timing) and the
 * next state, scheduled from the attempt's start.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Ids, Webhooks } from "@frank/core"
import { Either, Option } from "effect"
import { testPartner } from "@frank/core/testing"

const claim = (attempts: number, status: "delivering" | "pending" = "delivering"): Webhooks.ClaimedDelivery => ({
  partnerId: testPartner("p1"),
  id: "d1" as Ids.DeliveryId,
  endpointId: "e1" as Ids.EndpointId,
  eventId: "ev1",
  eventType: "webhook.test",
  payload: "{}",
  url: "https://hooks.example.com/in",
  secret: "whsec_a",
  previousSecret: null,
  previousSecretValidUntil: null,
  signatureScheme: "frank",
  state: {
    status,
    attempts,
    nextAttemptAt: status === "pending" ? 0 : null,
    leaseUntil: status === "delivering" ? 60_000 : null
  },
  claimToken: "t",
  createdAt: 0
})

const finished = (f: Either.Either<Webhooks.FinishedAttempt, string>): Webhooks.FinishedAttempt => {
  if (Either.isLeft(f)) throw new Error(f.left)
  return f.right
}

describe("finishedAttempt", () => {
  it("records a 2xx as delivered, with its status, duration and the answer's body snippet", () => {
    const f = finished(
      Webhooks.finishedAttempt(claim(1), { _tag: "Answered", status: 204, body: "accepted" }, 1_000, 1_250)
    )
    expect(f.next).toEqual({ status: "delivered", attempts: 1, nextAttemptAt: null, leaseUntil: null })
    expect(f.attempt).toEqual({
      attempt: 1,
      startedAt: 1_000,
      durationMs: 250,
      responseStatus: 204,
      error: null,
      responseSnippet: "accepted"
    })
  })

  it("schedules the retry from the attempt's start, whatever the attempt took", () => {
    const f = finished(Webhooks.finishedAttempt(claim(2), { _tag: "Answered", status: 503 }, 10_000, 19_000))
    expect(f.next).toEqual({ status: "pending", attempts: 2, nextAttemptAt: 10_000 + 300_000, leaseUntil: null })
    expect(f.attempt.error).toBe("HTTP 503")
  })

  it("describes every kind of failure, and dead-letters the sixth", () => {
    const cases = [
      [{ _tag: "Answered", status: 302 }, 302, "redirect 302 (not followed)"],
      [{ _tag: "TimedOut" }, null, "no answer within 10 s"],
      [{ _tag: "ConnectionFailed", message: "ECONNREFUSED" }, null, "connection failed: ECONNREFUSED"],
      [{ _tag: "AddressRefused", message: "private address" }, null, "address refused: private address"]
    ] as const
    for (const [outcome, status, error] of cases) {
      const f = finished(Webhooks.finishedAttempt(claim(6), outcome, 0, 5))
      expect(f.attempt.responseStatus).toBe(status)
      expect(f.attempt.error).toBe(error)
      expect(f.next.status).toBe("dead_lettered")
    }
  })

  it("refuses an outcome for a delivery that is not delivering", () => {
    expect(
      Either.getLeft(Webhooks.finishedAttempt(claim(1, "pending"), { _tag: "Answered", status: 200 }, 0, 1))
    ).toEqual(Option.some("claimed delivery d1 refused its outcome: not_delivering"))
  })
})
