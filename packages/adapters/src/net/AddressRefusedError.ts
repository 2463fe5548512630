/**
 * The error the guarded connector hands to undici when it refuses a destination. undici passes a
 * connector's error unchanged to every request queued on that origin, so callers can tell a
 * policy refusal (never retry-worthy as-is) from an ordinary connection failure by its code.
 */
export const ADDRESS_REFUSED_CODE = "FRANK_ADDRESS_REFUSED"

export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED_CODE
  override readonly name = "AddressRefusedError"
}

/** By code rather than `instanceof`, so a second copy of this module still recognises it. */
export const isAddressRefusedError = (error: unknown): error is AddressRefusedError =>
  error instanceof Error && (error as { readonly code?: unknown }).code === ADDRESS_REFUSED_CODE
