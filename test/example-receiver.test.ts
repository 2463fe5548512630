/**
 * The example receiver as an integrator runs it: a separate Node process on a random port, with
 * its secrets from the environment, answering real signed HTTP deliveries.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { resolve } from "node:path"
import { MemoryProcessedEvents } from "@frank/adapters"
import { WebhookSigning } from "@frank/core"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Ref, TestClock } from "effect"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { handleDelivery } from "../examples/receiver/handleDelivery.js"

const ROOT = resolve(import.meta.dirname, "..")
const SERVER = "examples/receiver/server.ts"
const secret = "whsec_example_current"
const previous = "whsec_example_previous"

interface Running {
  readonly child: ChildProcess
  readonly lines: () => ReadonlyArray<string>
  readonly exited: Promise<number | null>
}

const start = (env: Record<string, string>): Running => {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env }
  for (const name of ["FRANK_WEBHOOK_SECRET", "FRANK_WEBHOOK_PREVIOUS_SECRET", "FAIL_STATUS"])
    if (!(name in env)) delete childEnv[name]
  const child = spawn(process.execPath, ["--conditions=@frank/source", "--import", "tsx", SERVER], {
    cwd: ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout?.on("data", (d) => {
    out += d
  })
  child.stderr?.on("data", (d) => {
    out += d
  })
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
  return { child, lines: () => out.split("\n").filter((l) => l.length > 0), exited }
}

const parse = (line: string): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/** Waits until the output has a JSON line satisfying `predicate` (the child logs before it answers, but on another pipe). */
const waitForLine = async (
  running: Running,
  predicate: (entry: Record<string, unknown>) => boolean,
  timeoutMs = 30_000
) => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const found = running
      .lines()
      .map(parse)
      .find((e) => e !== undefined && predicate(e))
    if (found !== undefined) return found
    if (running.child.exitCode !== null || performance.now() > deadline)
      throw new Error(`no matching line; output:\n${running.lines().join("\n")}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const envelope = (eventId: string) =>
  JSON.stringify({
    eventId,
    eventType: "billing.settled",
    occurredAt: "2027-01-15T08:00:00.000Z",
    partnerId: "p_example",
    schemaVersion: 1,
    data: { transactionId: `t_${eventId}`, amountFranks: 12.5 }
  })

describe("examples/receiver", () => {
  let receiver: Running
  let baseUrl: string

  beforeAll(async () => {
    receiver = start({ PORT: "0", FRANK_WEBHOOK_SECRET: secret, FRANK_WEBHOOK_PREVIOUS_SECRET: previous })
    const listening = await waitForLine(receiver, (e) => e.msg === "listening")
    expect(listening.port).toBeGreaterThan(0)
    baseUrl = `http://127.0.0.1:${listening.port}`
  })

  afterAll(async () => {
    receiver.child.kill("SIGTERM")
    expect(await receiver.exited).toBe(0)
  })

  /** Posts `body` with headers signed now (or at `timestamp`), as Frank's worker sends them. */
  const deliver = async (
    eventId: string,
    body: string,
    opts: {
      timestamp?: number
      signature?: string
      previousSignature?: string
      headerEventId?: string
      signedBody?: string
    } = {}
  ) => {
    const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000)
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "X-Service-Event": "billing.settled",
      "X-Service-Event-Id": opts.headerEventId ?? eventId,
      "X-Service-Timestamp": String(timestamp),
      "X-Service-Signature": opts.signature ?? (await WebhookSigning.sign(secret, timestamp, opts.signedBody ?? body))
    }
    if (opts.previousSignature !== undefined) headers["X-Service-Signature-Previous"] = opts.previousSignature
    const res = await fetch(`${baseUrl}/webhooks/frank`, { method: "POST", headers, body })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }

  const processedLines = (eventId: string) =>
    receiver
      .lines()
      .map(parse)
      .filter((e) => e?.msg === "event processed" && e.eventId === eventId)

  it("processes a signed delivery once and answers its re-delivery 200 as a duplicate", async () => {
    const id = randomUUID()
    expect(await deliver(id, envelope(id))).toEqual({ status: 200, body: { eventId: id, result: "Processed" } })
    // Frank's retry: same event, fresh timestamp and signature.
    expect(await deliver(id, envelope(id))).toEqual({ status: 200, body: { eventId: id, result: "Duplicate" } })
    // Both answers are logged after the action would have run, so the action's lines are in by now.
    await waitForLine(receiver, (e) => e.msg === "delivery answered" && e.eventId === id && e.result === "Duplicate")
    expect(processedLines(id)).toHaveLength(1)
    expect(processedLines(id)[0]).toMatchObject({ eventType: "billing.settled", data: { amountFranks: 12.5 } })
  })

  it("answers 401 to a tampered body and to a wrong or stale signature, and runs nothing", async () => {
    const id = randomUUID()
    const original = envelope(id)
    const tampered = await deliver(id, original.replace("12.5", "1250"), { signedBody: original })
    expect(tampered).toEqual({ status: 401, body: expect.objectContaining({ error: "signature_mismatch" }) })
    const t = Math.floor(Date.now() / 1000)
    expect(
      (
        await deliver(id, original, {
          signature: await WebhookSigning.sign("whsec_attacker", t, original),
          timestamp: t
        })
      ).status
    ).toBe(401)
    const stale = t - 400
    const old = await deliver(id, original, {
      timestamp: stale,
      signature: await WebhookSigning.sign(secret, stale, original)
    })
    expect(old).toEqual({ status: 401, body: expect.objectContaining({ error: "timestamp_out_of_tolerance" }) })
    // None of them was recorded: the genuine delivery is still processed.
    expect((await deliver(id, original)).body.result).toBe("Processed")
  })

  it("accepts a delivery valid only in X-Service-Signature-Previous (FRANK_WEBHOOK_PREVIOUS_SECRET)", async () => {
    const id = randomUUID()
    const body = envelope(id)
    const t = Math.floor(Date.now() / 1000)
    const r = await deliver(id, body, {
      timestamp: t,
      signature: await WebhookSigning.sign("whsec_newer_unknown", t, body),
      previousSignature: await WebhookSigning.sign(previous, t, body)
    })
    expect(r).toEqual({ status: 200, body: { eventId: id, result: "Processed" } })
  })

  it("answers 400 to missing headers, a bad body, or an event id header that differs from the signed body", async () => {
    const missing = await fetch(`${baseUrl}/webhooks/frank`, { method: "POST", body: "{}" })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ error: "missing_headers" })

    const id = randomUUID()
    expect(await deliver(id, "not json")).toEqual({
      status: 400,
      body: expect.objectContaining({ error: "malformed_body" })
    })
    // A captured delivery replayed with a fresh id in the (unsigned) header must not run the action again.
    const replayed = await deliver(id, envelope(id), { headerEventId: randomUUID() })
    expect(replayed).toEqual({ status: 400, body: expect.objectContaining({ error: "header_mismatch" }) })
    expect(processedLines(id)).toHaveLength(0)
  })

  it("answers 405 to anything but POST", async () => {
    expect((await fetch(`${baseUrl}/webhooks/frank`)).status).toBe(405)
  })
})

describe("examples/receiver with FAIL_STATUS", () => {
  it("verifies each delivery, then answers the chosen status without processing it", async () => {
    const running = start({ PORT: "0", FRANK_WEBHOOK_SECRET: secret, FAIL_STATUS: "503" })
    try {
      const listening = await waitForLine(running, (e) => e.msg === "listening")
      const url = `http://127.0.0.1:${listening.port}/hook`
      const id = randomUUID()
      const body = envelope(id)
      const t = Math.floor(Date.now() / 1000)
      const post = async (signature: string) => {
        const headers = {
          "content-type": "application/json",
          "X-Service-Event": "billing.settled",
          "X-Service-Event-Id": id,
          "X-Service-Timestamp": String(t),
          "X-Service-Signature": signature
        }
        const res = await fetch(url, { method: "POST", headers, body })
        return { status: res.status, body: (await res.json()) as Record<string, unknown> }
      }
      expect(await post(await WebhookSigning.sign(secret, t, body))).toEqual({
        status: 503,
        body: { eventId: id, error: "fail_status_set" }
      })
      // Still a receiver that checks signatures: a forged delivery gets its 401, not the chosen status.
      expect((await post(await WebhookSigning.sign("whsec_attacker", t, body))).status).toBe(401)
      await waitForLine(running, (e) => e.msg === "delivery answered" && e.status === 401)
      expect(
        running
          .lines()
          .map(parse)
          .filter((e) => e?.msg === "event processed")
      ).toEqual([])
    } finally {
      running.child.kill("SIGTERM")
      expect(await running.exited).toBe(0)
    }
  })

  it("refuses to start with a status Frank would count as a success, or with something that is not a status", async () => {
    for (const value of ["200", "abc", "700"]) {
      const running = start({ PORT: "0", FRANK_WEBHOOK_SECRET: secret, FAIL_STATUS: value })
      expect(await running.exited, value).toBe(1)
      expect(running.lines().join("\n"), value).toContain("FAIL_STATUS must be an HTTP status from 300 to 599")
    }
  })
})

describe("examples/receiver without a secret", () => {
  it("refuses to start", async () => {
    const running = start({ PORT: "0" })
    expect(await running.exited).toBe(1)
    expect(running.lines().join("\n")).toContain("FRANK_WEBHOOK_SECRET is required")
  })
})

describe("examples/receiver handleDelivery", () => {
  it.effect("answers 500 when the business action fails, so Frank retries; the retry is processed", () =>
    Effect.gen(function* () {
      const t = 1_800_000_000
      yield* TestClock.setTime(t * 1000)
      const id = randomUUID()
      const rawBody = new TextEncoder().encode(envelope(id))
      const headers = {
        "x-service-event": "billing.settled",
        "x-service-event-id": id,
        "x-service-timestamp": String(t),
        "x-service-signature": yield* Effect.promise(() => WebhookSigning.sign(secret, t, rawBody))
      }
      const calls = yield* Ref.make(0)
      // Fails on its first call, as a business action whose database is briefly down would.
      const action = () =>
        Effect.flatMap(
          Ref.updateAndGet(calls, (n) => n + 1),
          (n) => (n === 1 ? Effect.fail("db down") : Effect.void)
        )
      const delivery = { headers, rawBody }
      expect(yield* handleDelivery([secret], delivery, action)).toEqual({ status: 500, body: { error: "internal" } })
      expect(yield* handleDelivery([secret], delivery, action)).toEqual({
        status: 200,
        body: { eventId: id, result: "Processed" }
      })
      expect(yield* handleDelivery([secret], delivery, action)).toEqual({
        status: 200,
        body: { eventId: id, result: "Duplicate" }
      })
      expect(yield* Ref.get(calls)).toBe(2)
    }).pipe(Effect.provide(MemoryProcessedEvents.layer))
  )

  it.effect("processes a Standard Webhooks delivery signed by the specification's library, once", () =>
    Effect.gen(function* () {
      const t = 1_800_000_000
      yield* TestClock.setTime(t * 1000)
      const standardSecret = `whsec_${Buffer.alloc(32, 42).toString("base64")}`
      const id = randomUUID()
      const body = envelope(id)
      const headers = {
        "webhook-id": id,
        "webhook-timestamp": String(t),
        "webhook-signature": new StandardWebhook(standardSecret).sign(id, new Date(t * 1000), body)
      }
      const delivery = { headers, rawBody: new TextEncoder().encode(body) }
      const ok = () => Effect.void
      expect(yield* handleDelivery([standardSecret], delivery, ok)).toEqual({
        status: 200,
        body: { eventId: id, result: "Processed" }
      })
      expect(yield* handleDelivery([standardSecret], delivery, ok)).toEqual({
        status: 200,
        body: { eventId: id, result: "Duplicate" }
      })
      // Signed for another message id: not this delivery's.
      const forged = { ...delivery, headers: { ...headers, "webhook-id": randomUUID() } }
      expect((yield* handleDelivery([standardSecret], forged, ok)).status).toBe(401)
    }).pipe(Effect.provide(MemoryProcessedEvents.layer))
  )
})
