/**
 * What consuming a delivery did: ran the business action once (`Processed`), or recognised an
 * eventId already processed and ran nothing (`Duplicate`). A receiver answers 2xx to both, which
 * is what stops Frank's at-least-once retries.
 */
export interface ConsumeProcessed<A> {
  readonly _tag: "Processed"
  readonly value: A
}

export interface ConsumeDuplicate {
  readonly _tag: "Duplicate"
}

export type ConsumeResult<A> = ConsumeProcessed<A> | ConsumeDuplicate

const duplicate: ConsumeResult<never> = { _tag: "Duplicate" }

/** Constructors, namespaced so that core's flat export list does not gain bare `processed`/`duplicate`. */
export const ConsumeResult = {
  processed: <A>(value: A): ConsumeResult<A> => ({ _tag: "Processed", value }),
  duplicate
} as const
