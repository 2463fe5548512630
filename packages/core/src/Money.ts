/**
 * The `Money` namespace: amounts as integer minor units and their conversions to and from francs.
 * The unit constants and the micro-franc rounding the pricing uses stay in internal/money.ts.
 */
export { FranksAmount, franksToMinor, type Minor, minorToFranks } from "./internal/money.js"
