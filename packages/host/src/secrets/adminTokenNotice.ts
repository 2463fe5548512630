/**
 * How the host tells the operator about the admin token: the full value only on the start that
 * generated it, as a plain framed block on stdout rather than a JSON log entry so it stands out
 * in a terminal; every later start logs only where the token is (never its value), so log
 * storage holds the secret at most once, from the very first start.
 */
import { Console, Effect, Redacted } from "effect"
import type { LoadedSecret } from "./fileSecret.js"

export const adminTokenBanner = (secret: LoadedSecret): string =>
  [
    "",
    "================================ FRANK ADMIN TOKEN ================================",
    "Generated on this first start; it is shown only once. Use it as",
    "  Authorization: Bearer <token>   (or: frank --token <token> ...)",
    "",
    `  ${Redacted.value(secret.value)}`,
    "",
    `Stored in ${secret.path} (mode 0600). Set FRANK_ADMIN_TOKEN to use your own.`,
    "===================================================================================",
    ""
  ].join("\n")

export const announceAdminToken = (secret: LoadedSecret): Effect.Effect<void> => {
  if (secret.created) return Console.log(adminTokenBanner(secret))
  if (secret.source === "file") return Effect.logInfo(`admin token: read from ${secret.path}`)
  return Effect.logInfo("admin token: from FRANK_ADMIN_TOKEN")
}
