/**
 * The bundled sample catalog: realistic models in all five families, used when the operator sets
 * no FRANK_PRICING_CATALOG, and the reference example of the catalog file format. It is imported
 * as JSON (no file system), so core keeps running on any platform.
 */
import { Either } from "effect"
import sample from "../../catalog/sample-catalog.json" with { type: "json" }
import { type Catalog, decodeCatalog } from "./Catalog.js"

/** The raw JSON, e.g. to derive broken variants in tests. */
export const sampleCatalogJson: unknown = sample

/** Decoded at import: a broken bundled catalog is a bug, and fails loudly at start-up. */
export const sampleCatalog: Catalog = Either.getOrThrowWith(decodeCatalog(sample), (e) => new Error(e.message))
