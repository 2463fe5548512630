/**
 * A host-wide clock that an operator can move forward in a sandbox (FRANK_SANDBOX_CLOCK=true):
 * wall time plus an offset. Since the engine reads time only from Effect's Clock, advancing it
 * lets integrators and end-to-end tests see key expiry, rate-limit windows or retry schedules
 * without waiting. Off by default; never enable it in production.
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"

export interface SandboxClockShape {
  readonly enabled: boolean
  readonly clock: Clock.Clock
  /** Moves the clock forward; fails when the sandbox clock is disabled. */
  readonly advance: (ms: number) => Effect.Effect<number>
}

const make = (enabled: boolean): SandboxClockShape => {
  const base = Clock.make()
  let offsetMs = 0
  const nowMs = () => base.unsafeCurrentTimeMillis() + offsetMs
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: nowMs,
    currentTimeMillis: Effect.sync(nowMs),
    unsafeCurrentTimeNanos: () => base.unsafeCurrentTimeNanos() + BigInt(offsetMs) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => base.unsafeCurrentTimeNanos() + BigInt(offsetMs) * 1_000_000n),
    // Sleeps run in real time: advancing the clock changes what "now" is, not pending timers.
    sleep: (duration: Duration.DurationInput) => base.sleep(Duration.decode(duration))
  }
  return {
    enabled,
    clock,
    advance: (ms) =>
      Effect.sync(() => {
        if (!Number.isSafeInteger(ms) || ms < 0)
          throw new RangeError("advance must be a non-negative integer of milliseconds")
        offsetMs += ms
        return nowMs()
      })
  }
}

export class SandboxClock extends Context.Tag("@frank/host/SandboxClock")<SandboxClock, SandboxClockShape>() {
  /** The clock itself: main.ts installs its `clock` as Effect's Clock too. */
  static readonly make = make
  static readonly layer = (shape: SandboxClockShape) => Layer.succeed(SandboxClock, shape)
}
