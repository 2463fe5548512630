/**
 * A top-up payment (spec "Top-up payment"): a partner pays rubles through an acquirer and, once
 * the acquirer confirms, the ledger is credited 1 RUB = 1 ₣. The record is ours; the acquirer
 * keeps its own under `providerPaymentId`.
 */
import { Schema } from "effect"
import type { PaymentId, PartnerId } from "../EntityIds.js"
import { MINOR_PER_FRANK, type Minor } from "../internal/money.js"

/** The states of a payment. */
export const PaymentStatus = Schema.Literal("pending", "authorized", "confirmed", "canceled", "rejected", "failed")
export type PaymentStatus = typeof PaymentStatus.Type

/** Spec "Limits": amountRub is an integer 1..100000. */
export const PAYMENT_MIN_AMOUNT_RUB = 1
export const PAYMENT_MAX_AMOUNT_RUB = 100_000
export const PAYMENT_MAX_DESCRIPTION_LENGTH = 140
export const PAYMENT_MAX_IDEMPOTENCY_KEY_LENGTH = 128
/** Spec "Limits": top-up history shows the last 50 payments. */
export const PAYMENT_HISTORY_SIZE = 50

/** A card payment: its amount, status and the provider's reference. */
export interface Payment {
  readonly partnerId: PartnerId
  readonly id: PaymentId
  /** Whole rubles; credited as the same number of franks. */
  readonly amountRub: number
  readonly description: string | null
  /** The client's Idempotency-Key; unique per partner. */
  readonly idempotencyKey: string
  readonly status: PaymentStatus
  /** The acquirer's id, once the acquirer accepted the payment. */
  readonly providerPaymentId: string | null
  /** Where the payer pays, once the acquirer accepted the payment. */
  readonly paymentUrl: string | null
  /** Epoch ms, from Effect's Clock. */
  readonly createdAt: number
  readonly updatedAt: number
}

/** 1 RUB = 1 ₣ (spec "Overview"); the ledger counts minor units. */
export const paymentCreditMinor = (p: Pick<Payment, "amountRub">): Minor => p.amountRub * MINOR_PER_FRANK

/** Checks of a new payment that a schema at the edge also makes; the service repeats them for embedders. */
export const checkNewPayment = (input: {
  amountRub: number
  description?: string | undefined
  idempotencyKey: string
}): ReadonlyArray<string> => {
  const problems: string[] = []
  if (
    !Number.isInteger(input.amountRub) ||
    input.amountRub < PAYMENT_MIN_AMOUNT_RUB ||
    input.amountRub > PAYMENT_MAX_AMOUNT_RUB
  )
    problems.push(`amountRub: must be an integer between ${PAYMENT_MIN_AMOUNT_RUB} and ${PAYMENT_MAX_AMOUNT_RUB}`)
  if (input.description !== undefined && input.description.length > PAYMENT_MAX_DESCRIPTION_LENGTH)
    problems.push(`description: must be at most ${PAYMENT_MAX_DESCRIPTION_LENGTH} characters`)
  if (input.idempotencyKey.length === 0 || input.idempotencyKey.length > PAYMENT_MAX_IDEMPOTENCY_KEY_LENGTH)
    problems.push(`Idempotency-Key: must be 1 to ${PAYMENT_MAX_IDEMPOTENCY_KEY_LENGTH} characters`)
  return problems
}
