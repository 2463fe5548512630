/**
 * A partner id for tests and simulations. Ports take the branded `PartnerId`, made where an id enters
 * the engine (auth, admin API, rows read back); tests name partners readably ("p1"), and stores hold
 * partner ids as text, so this brands any string without decoding it.
 */
import type { PartnerId } from "../EntityIds.js"

/** A partner id for tests, branded from a readable string. */
export const testPartner = (id: string): PartnerId => id as PartnerId
