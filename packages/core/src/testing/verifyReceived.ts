/**
 * Verifies a request the scripted receiver recorded, as a receiver would have when it arrived:
 * the receiver kit's `verifyWebhook` at the request's own time (`at`, on TestClock), so a test can
 * check signatures after advancing the clock past them. Either scheme (Frank's headers, else the
 * Standard Webhooks ones, or as `scheme` says), with one secret or several.
 */
import { Effect } from "effect"
import {
  type VerifiedScheme,
  type VerifyResult,
  type VerifyWebhookInput,
  verifyWebhook
} from "../webhooks/receiver/verifyWebhook.js"
import type { ReceivedRequest } from "./ScriptedReceiver.js"

/** Verifies a request the scripted receiver got, as a partner's receiver would. */
export const verifyReceived = (
  request: ReceivedRequest,
  secret: VerifyWebhookInput["secret"],
  scheme?: VerifiedScheme
): Effect.Effect<VerifyResult> =>
  Effect.promise(() =>
    verifyWebhook({
      secret,
      headers: request.headers,
      rawBody: request.body,
      now: request.at,
      ...(scheme === undefined ? {} : { scheme })
    })
  )
