/**
 * The form of an endpoint's signing secret: `whsec_` + 32 random bytes in padded standard base64,
 * the form the Standard Webhooks libraries decode (endpoints made before migration 0017 keep their
 * base64url secret until a rotation).
 */

/** Random bytes in a new signing secret. */
export const SECRET_BYTES = 32
/** The prefix of every signing secret made since migration 0017. */
export const SECRET_PREFIX = "whsec_"
