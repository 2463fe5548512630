/**
 * Money is exact: every amount inside the engine is an integer number of minor units
 * (1 ₣ = 100 minor units). Prices per unit may carry more precision and are kept as integer
 * micro-franks (1 ₣ = 1_000_000 micros). JavaScript numbers hold integers exactly up to 2^53,
 * i.e. about 90 trillion franks in minor units — far beyond any account — and every constructor
 * here asserts that bound instead of silently losing precision.
 */
import { Schema } from "effect"

/** Minor units (centimes) in one franc. */
export const MINOR_PER_FRANK = 100
/** Micro-units in one franc (prices are computed in micros). */
export const MICROS_PER_FRANK = 1_000_000
/** Micro-units in one minor unit. */
export const MICROS_PER_MINOR = MICROS_PER_FRANK / MINOR_PER_FRANK

/** An integer amount of minor units (kopeck-like hundredths of a frank). */
export type Minor = number

/** Returns the amount if it is a safe integer of minor units, else throws. */
export const assertMinor = (value: number, what = "amount"): Minor => {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be a safe integer of minor units, got ${value}`)
  return value
}

/** Minor units → franks for JSON output; an integer divided by 100 prints with at most 2 decimals. */
export const minorToFranks = (minor: Minor): number => assertMinor(minor) / MINOR_PER_FRANK

/**
 * Franks (a JSON number with at most 2 decimals) → minor units, exactly. Parsing goes through the
 * decimal string so that 0.29 becomes 29, not 28.999999999999996.
 */
export const franksToMinor = (franks: number): Minor | undefined => {
  if (!Number.isFinite(franks)) return undefined
  const text = franks.toFixed(2)
  if (Number(text) !== franks) return undefined // more than 2 decimals
  const negative = text.startsWith("-")
  const [whole = "0", fraction = "00"] = (negative ? text.slice(1) : text).split(".")
  const minor = Number(whole) * MINOR_PER_FRANK + Number(fraction)
  if (!Number.isSafeInteger(minor)) return undefined
  return negative ? -minor : minor
}

/** Micro-franks → minor units, rounding up to the next 0.01 ₣ (quotes never undercharge by a fraction). */
export const microsToMinorCeil = (micros: number): Minor => {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`micros must be a safe integer, got ${micros}`)
  return Math.ceil(micros / MICROS_PER_MINOR)
}

/** Schema for a franks amount in a request body: a number with at most 2 decimals, decoded to minor units. */
export const FranksAmount = Schema.Number.pipe(
  Schema.filter((n) => franksToMinor(n) !== undefined || "must be a number of franks with at most 2 decimals")
)
