/**
 * The pricing service: one loaded catalog, its view, and estimates at a discount.
 */
import { Context, type Either, Layer } from "effect"
import type { Catalog } from "./Catalog.js"
import { type CatalogView, catalogView } from "./CatalogView.js"
import type { EstimateRequest } from "./EstimateRequest.js"
import { estimate } from "./estimate.js"
import type { EstimateRejected, Quote } from "./Quote.js"

export interface PricingShape {
  readonly catalog: Catalog
  readonly view: (discountPercent: number) => CatalogView
  readonly estimate: (req: EstimateRequest, discountPercent: number) => Either.Either<Quote, EstimateRejected>
}

export class Pricing extends Context.Tag("@frank/core/Pricing")<Pricing, PricingShape>() {
  static readonly fromCatalog = (catalog: Catalog) =>
    Layer.succeed(Pricing, {
      catalog,
      view: (d) => catalogView(catalog, d),
      estimate: (req, d) => estimate(catalog, req, d)
    })
}
