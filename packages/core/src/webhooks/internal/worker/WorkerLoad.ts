/**
 * The worker's load: attempts holding a slot (from the claim until the answer) and outcomes not yet
 * written. Changed only through its methods, on the worker's own fibers (the claim loop, the answer
 * collector, the writer); the transport's callbacks never touch it, they queue answers (`BatchMessage`).
 */
import { MAX_WRITE_BATCH } from "../../WorkerConfig.js"

export class WorkerLoad {
  private inFlight = 0
  private waitingToWrite = 0
  private wakeLoop = false
  /** Claims wait for this many free slots unless nothing is in flight: small refills cost a claim per delivery. */
  readonly refillAt: number

  constructor(readonly concurrency: number) {
    this.refillAt = Math.max(1, Math.floor(concurrency / 4))
  }

  /** Attempts holding a slot. */
  get busy(): number {
    return this.inFlight
  }

  /** Outcomes handed to the writer and not yet written. */
  get unwritten(): number {
    return this.waitingToWrite
  }

  get free(): number {
    return this.concurrency - this.inFlight
  }

  /** Too many outcomes wait for the writer: the database is slower than the receivers, so claims pause. */
  get backlogged(): boolean {
    return this.unwritten >= MAX_WRITE_BATCH
  }

  /** Whether a claim is worth its statement now. */
  get claimable(): boolean {
    return !this.backlogged && (this.free >= this.refillAt || this.busy === 0)
  }

  /**
   * How many answers would change what the claim loop decides: enough to free the refill
   * threshold's slots, or every attempt in flight (the loop is then idle). Fewer change nothing,
   * so the collector settles them at the end of the event-loop turn (answerInbox.ts).
   */
  get answersThatMatter(): number {
    const toRefill = this.free < this.refillAt ? this.refillAt - this.free : this.busy
    return Math.max(1, Math.min(toRefill, this.busy))
  }

  claimed(count: number): void {
    this.inFlight += count
  }

  /** `count` outcomes were handed to the writer. */
  queuedForWriting(count: number): void {
    this.waitingToWrite += count
  }

  /** The writer recorded `count` outcomes. */
  written(count: number): void {
    this.waitingToWrite -= count
  }

  /**
   * Frees slots. The loop needs waking only when that can change its decision: the free slots just
   * reached the refill threshold, or nothing is in flight any more (waking it on every answer costs
   * a loop turn per delivery for nothing).
   */
  freed(count: number): void {
    if (count <= 0) return
    const freeBefore = this.free
    this.inFlight -= count
    if (this.inFlight === 0 || (freeBefore < this.refillAt && this.free >= this.refillAt)) this.wakeLoop = true
  }

  /** True once after `freed` decided the loop should wake. */
  takeWake(): boolean {
    const wake = this.wakeLoop
    this.wakeLoop = false
    return wake
  }
}
