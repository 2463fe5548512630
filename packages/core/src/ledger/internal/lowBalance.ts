/**
 * The low-balance rule (spec "Event types"): after a movement that lowered available, emit
 * `billing.low_balance` when available is under the threshold and none was emitted in the last
 * 24 h. Runs inside the movement's transaction, so the mark and the event commit with it.
 */
import { Clock, Effect } from "effect"
import type { OutboxShape } from "../../events/Outbox.js"
import type { StoreError } from "../../StoreError.js"
import type { AccountTotals } from "../Account.js"
import type { LedgerStoreShape } from "../LedgerStore.js"
import { isLow, LOW_BALANCE_INTERVAL_MS, lowBalanceEvent } from "./ledgerEvents.js"
import type { PartnerId } from "../../EntityIds.js"

/** Answers the number of deliveries created. */
export const checkLowBalance =
  (store: LedgerStoreShape, outbox: OutboxShape) =>
  (partnerId: PartnerId, totals: AccountTotals): Effect.Effect<number, StoreError> =>
    isLow(totals)
      ? Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          if (!(yield* store.claimLowBalance(partnerId, now, LOW_BALANCE_INTERVAL_MS))) return 0
          return (yield* outbox.emit(partnerId, lowBalanceEvent(totals))).deliveries
        })
      : Effect.succeed(0)
