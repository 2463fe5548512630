/**
 * Settings of the webhook area an engine is built with.
 */
import { Context, Layer } from "effect"

export interface WebhookSettingsShape {
  /**
   * Development and tests only (FRANK_ALLOW_PRIVATE_NETWORK): endpoints may use http:// and
   * private or loopback hosts, so local receivers work.
   */
  readonly allowPrivateNetwork: boolean
}

export class WebhookSettings extends Context.Tag("@frank/core/WebhookSettings")<
  WebhookSettings,
  WebhookSettingsShape
>() {
  static readonly layerProduction = Layer.succeed(WebhookSettings, { allowPrivateNetwork: false })
  static readonly layer = (settings: WebhookSettingsShape) => Layer.succeed(WebhookSettings, settings)
}
