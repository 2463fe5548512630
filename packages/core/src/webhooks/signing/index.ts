/**
 * The `WebhookSigning` namespace: how Frank signs a delivery (its own scheme and Standard
 * Webhooks), the signing secret's form and the `WebhookSigner` port.
 */
export { SignatureScheme } from "./SignatureScheme.js"
export {
  signEachNow,
  type SignNow,
  signStandardEachNow,
  type SignStandardNow,
  webCryptoWebhookSigner,
  WebhookSigner,
  type WebhookSignerShape
} from "./WebhookSigner.js"
export { constantTimeEqual, sign } from "./signature.js"
export { STANDARD_SIGNATURE_VERSION, standardKeyBytes } from "./standardSignature.js"
