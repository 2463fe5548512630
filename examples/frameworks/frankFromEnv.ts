/**
 * How the framework examples open Frank when run as programs: the PostgreSQL of DATABASE_URL
 * (in schema FRANK_DB_SCHEMA, default `frank`), else embedded PGlite in FRANK_DATA_DIR. Their
 * tests build Frank themselves, on a throwaway database.
 */
import { createFrank, type Frank } from "@frank/host/embed"

/** Where each example mounts Frank: partner API at /frank/v1/…, cabinet at /frank/cabinet. */
export const BASE_PATH = "/frank"

/** A Frank for an example program reachable at `publicBaseUrl` (e.g. `http://localhost:3000`). */
export const frankFromEnv = (publicBaseUrl: string, dataDir: string): Promise<Frank> => {
  const url = process.env.DATABASE_URL
  return createFrank({
    ...(url === undefined || url === "" ? { embedded: process.env.FRANK_DATA_DIR ?? dataDir } : { databaseUrl: url }),
    schema: process.env.FRANK_DB_SCHEMA || undefined,
    // A development pepper: set FRANK_PEPPER (a long random secret, kept) for anything real.
    pepper: process.env.FRANK_PEPPER ?? "example-pepper-change-me-0123456789",
    publicBaseUrl,
    basePath: BASE_PATH
  })
}

/** Makes a partner with credit and a key, and prints how to call the mounted API with it. */
export const printDemo = async (frank: Frank, publicBaseUrl: string): Promise<void> => {
  const partner = await frank.partners.create("Demo partner")
  await frank.ledger.credit(partner.id, { kind: "topup", amountMinor: 10_000, reference: `demo-${partner.id}` })
  const { raw } = await frank.keys.issue(partner.id, { label: "demo" })
  console.log(`listening on ${publicBaseUrl}`)
  console.log(`  curl -H 'X-API-Key: ${raw}' ${publicBaseUrl}${BASE_PATH}/v1/billing/balance`)
  console.log(`  open ${publicBaseUrl}/account/billing?partner=${partner.id}   # your login → the cabinet`)
}
