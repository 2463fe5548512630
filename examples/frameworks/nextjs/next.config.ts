/**
 * Frank runs on Node (pg, PGlite's WebAssembly, node:crypto, its migrations read from disk):
 * Next loads it from node_modules instead of bundling it. (Untyped: `import type { NextConfig }`
 * would bring Next's global declarations into the repository's one typecheck.)
 */
const config = {
  serverExternalPackages: ["@frank/host", "@frank/adapters", "@frank/core", "@electric-sql/pglite", "pg"]
}

export default config
