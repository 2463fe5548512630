/**
 * The sandbox acquirer's configuration in the reference host: checkout URLs on the host's public
 * base URL, and a signing key derived from the key pepper. Deriving it (HMAC of a fixed label)
 * keeps it stable across restarts and equal on every instance sharing a database, without one
 * more secret file, and it reveals nothing of the pepper.
 */
import { createHmac } from "node:crypto"
import type { SandboxAcquirer } from "@frank/adapters"
import { Redacted } from "effect"
import type { HostConfigShape } from "../config/HostConfig.js"

export const sandboxAcquirerConfig = (
  config: Pick<HostConfigShape, "publicBaseUrl">,
  pepper: Redacted.Redacted<string>
): SandboxAcquirer.SandboxAcquirerConfig => ({
  baseUrl: config.publicBaseUrl,
  secret: Redacted.make(
    createHmac("sha256", Redacted.value(pepper)).update("frank/sandbox-acquirer/notifications/v1").digest("hex")
  )
})
