/**
 * The slots of one claimed batch. Each attempt holds a slot from the claim until it is settled,
 * once: by its outcome, or when the batch closes (it ended, failed or was interrupted; attempts
 * that never reported are left to their leases). A transport that reports an index twice, or
 * after the batch closed, cannot free a slot twice — that would let the worker claim past its
 * concurrency — and such a late outcome is dropped, as the port's contract says of interrupted
 * attempts.
 */
export interface BatchSlots {
  /** Settles attempt `index`; false when it is out of range, settled already, or the batch is closed (drop its outcome then). */
  readonly settle: (index: number) => boolean
  /** Settles every attempt still holding a slot; `settle` answers false from now on. */
  readonly close: () => void
}

/** `onSettled(n)` hears of every `n` slots freed, one by one on `settle`, the rest at once on `close`. */
export const makeBatchSlots = (count: number, onSettled: (count: number) => void): BatchSlots => {
  const open = new Uint8Array(count).fill(1)
  let holding = count
  let closed = false
  return {
    settle: (index) => {
      if (closed || !(index >= 0 && index < count) || open[index] === 0) return false
      open[index] = 0
      holding--
      onSettled(1)
      return true
    },
    close: () => {
      if (closed) return
      closed = true
      const rest = holding
      holding = 0
      if (rest > 0) onSettled(rest)
    }
  }
}
