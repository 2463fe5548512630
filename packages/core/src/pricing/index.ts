/**
 * The `Pricing` namespace: the price catalog, estimate requests, quotes and the `Pricing` service.
 */
export { type Catalog, decodeCatalog, Family, Quality } from "./Catalog.js"
export { CatalogItem, CatalogOperationView, CatalogView } from "./CatalogView.js"
export { EstimateRequest } from "./EstimateRequest.js"
export { Pricing } from "./Pricing.js"
export { Quote } from "./Quote.js"
export { sampleCatalog } from "./sampleCatalog.js"
export { loadTokenizer, tokenizerReady } from "./tokens.js"
