import { randomBytes } from "node:crypto"

/**
 * 32 random bytes from the OS CSPRNG, base64url: 43 characters that survive shells, headers and
 * env files without quoting.
 */
export const generateSecret = (): string => randomBytes(32).toString("base64url")
