/**
 * Settings of the webhook area an engine is built with.
 */
import { Context, Layer } from "effect"
import { DAY_MS } from "../timeUnits.js"
import { MAX_RECOVERED_PER_CALL } from "./recoveryWindow.js"

/** How long events and deliveries are kept when the engine is not told otherwise (FRANK_WEBHOOK_RETENTION_DAYS). */
export const DEFAULT_RETENTION_DAYS = 30

export interface WebhookSettingsShape {
  /**
   * Development and tests only (FRANK_ALLOW_PRIVATE_NETWORK): endpoints may use http:// and
   * private or loopback hosts, so local receivers work.
   */
  readonly allowPrivateNetwork: boolean
  /**
   * Days events and finished deliveries are kept; older ones are removed by `WebhookRetention`
   * and cannot be recovered. A whole number of at least 1; DEFAULT_RETENTION_DAYS when omitted.
   */
  readonly retentionDays?: number | undefined
  /**
   * Deliveries one recovery call requeues at most (FRANK_WEBHOOK_RECOVER_PER_CALL), a whole number
   * from 1 to MAX_RECOVERED_PER_CALL, which it is when omitted. Lower keeps each call's transaction
   * shorter; the partner continues with the answer's `remaining`.
   */
  readonly recoveredPerCall?: number | undefined
}

/** How many deliveries one recovery call of `settings` requeues at most: held to 1..MAX_RECOVERED_PER_CALL. */
export const recoveredPerCall = (settings: WebhookSettingsShape): number =>
  Math.max(1, Math.min(Math.floor(settings.recoveredPerCall ?? MAX_RECOVERED_PER_CALL), MAX_RECOVERED_PER_CALL))

/** The retention period of `settings` in milliseconds. */
export const retentionMs = (settings: WebhookSettingsShape): number =>
  (settings.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_MS

/** The webhook settings (retention days), provided by the host. */
export class WebhookSettings extends Context.Tag("@frank/core/WebhookSettings")<
  WebhookSettings,
  WebhookSettingsShape
>() {
  static readonly layerProduction = Layer.succeed(WebhookSettings, { allowPrivateNetwork: false })
  /** These webhook settings as a layer. */
  static readonly layer = (settings: WebhookSettingsShape) => Layer.succeed(WebhookSettings, settings)
}
