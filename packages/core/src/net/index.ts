/**
 * The `Net` namespace: which addresses and URLs a webhook endpoint or an import may reach.
 */
export { isIpLiteral, isPublicAddress } from "./addressPolicy.js"
export { checkEndpointUrl } from "./endpointUrl.js"
