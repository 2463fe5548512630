/**
 * The pricing service: one loaded catalog, its view and estimates at a tariff discount. The
 * catalog is loaded and checked once at start-up (`loadCatalog`), so every call here is pure.
 */
import { Context, type Either, Layer } from "effect"
import type { Catalog } from "./Catalog.js"
import { type CatalogView, catalogView } from "./CatalogView.js"
import type { EstimateRequest } from "./EstimateRequest.js"
import { estimate } from "./internal/estimate.js"
import type { EstimateRejected, Quote } from "./Quote.js"

export interface PricingShape {
  readonly catalog: Catalog
  readonly catalogView: (discountPercent: number) => CatalogView
  /** Same as catalogView (the name the billing handlers use). */
  readonly view: (discountPercent: number) => CatalogView
  readonly estimate: (request: EstimateRequest, discountPercent: number) => Either.Either<Quote, EstimateRejected>
}

/** The pricing service: quotes an estimate request against the catalog and the partner's tariff. */
export class Pricing extends Context.Tag("@frank/core/Pricing")<Pricing, PricingShape>() {
  /** The pricing service over `catalog`. */
  static readonly make = (catalog: Catalog): PricingShape => {
    const view = (discountPercent: number) => catalogView(catalog, discountPercent)
    return {
      catalog,
      catalogView: view,
      view,
      estimate: (request, discountPercent) => estimate(catalog, request, discountPercent)
    }
  }

  /** The pricing service over `catalog` as a layer. */
  static readonly layerFromCatalog = (catalog: Catalog): Layer.Layer<Pricing> =>
    Layer.succeed(Pricing, Pricing.make(catalog))
}
