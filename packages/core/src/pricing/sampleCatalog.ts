/**
 * The bundled sample catalog: realistic models in all five families, used when the operator sets
 * no FRANK_PRICING_CATALOG. It is also the reference example of the catalog file format.
 */
import { Either } from "effect"
import sample from "../../catalog/sample-catalog.json" with { type: "json" }
import { type Catalog, decodeCatalog } from "./Catalog.js"

export const sampleCatalogJson: unknown = sample

export const sampleCatalog: Catalog = Either.getOrThrowWith(decodeCatalog(sample), (e) => new Error(e.message))
