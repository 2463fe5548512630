/**
 * An exact, non-negative amount of micro-franks as a fraction of BigInts. Multipliers (basis
 * points) and per-1K-token prices divide, so intermediate amounts are not whole micros; keeping
 * the fraction means an estimate is rounded exactly once, at the end, never step by step.
 */
import { MICROS_PER_FRANK, microsToMinorCeil, type Minor } from "../../internal/money.js"

export interface ExactAmount {
  readonly num: bigint
  readonly den: bigint
}

export const fromMicros = (micros: number): ExactAmount => ({ num: BigInt(micros), den: 1n })

/** `micros × numerator / denominator`, e.g. tokens × price per 1K tokens / 1000. */
export const ratio = (micros: number, numerator: number, denominator: number): ExactAmount => ({
  num: BigInt(micros) * BigInt(numerator),
  den: BigInt(denominator)
})

export const multiply = (a: ExactAmount, numerator: number, denominator = 1): ExactAmount => ({
  num: a.num * BigInt(numerator),
  den: a.den * BigInt(denominator)
})

export const addMicros = (a: ExactAmount, micros: number): ExactAmount => ({
  num: a.num + BigInt(micros) * a.den,
  den: a.den
})

const ceilDiv = (n: bigint, d: bigint): bigint => (n + d - 1n) / d

/**
 * Rounds up to whole minor units (0.01 ₣). Ceil to a whole micro first and then to a minor unit
 * is the same as one ceil of the fraction, so the Money helper does the final step.
 */
export const toMinorCeil = (a: ExactAmount): Minor => microsToMinorCeil(toMicrosCeil(a))

/** Rounds up to a whole micro-frank. */
export const toMicrosCeil = (a: ExactAmount): number => {
  const micros = ceilDiv(a.num, a.den)
  if (micros > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount of ${micros} micro-franks is out of range`)
  return Number(micros)
}

/**
 * A whole number of micro-franks as a JSON number of franks (up to 6 decimals), for display of
 * unit prices only. Dividing two exactly representable integers yields the double nearest to the
 * decimal, which prints as that decimal; no arithmetic is done on the result.
 */
export const microsToFranks = (micros: number): number => {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`micros must be a safe integer, got ${micros}`)
  return micros / MICROS_PER_FRANK
}
