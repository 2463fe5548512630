/**
 * What consuming a delivery did: ran the business action once (`Processed`), or recognised an
 * eventId already processed and ran nothing (`Duplicate`). A receiver answers 2xx to both, which
 * is what stops Frank's at-least-once retries.
 */
export interface ConsumeProcessed<A> {
  readonly _tag: "Processed"
  readonly value: A
}

/** The event had been processed already; the action did not run. */
export interface ConsumeDuplicate {
  readonly _tag: "Duplicate"
}

export type ConsumeResult<A> = ConsumeProcessed<A> | ConsumeDuplicate

const duplicate: ConsumeResult<never> = { _tag: "Duplicate" }

/** Constructors, namespaced so that core's flat export list does not gain bare `processed`/`duplicate`. */
export const ConsumeResult = {
  /** The event was new and the handler ran: its `value`. */
  processed: <A>(value: A): ConsumeResult<A> => ({ _tag: "Processed", value }),
  duplicate
} as const
