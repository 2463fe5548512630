import { defineConfig } from "vitest/config"

// Tests run on the TypeScript sources: `@frank/*` exports resolve under this condition to src/.
const conditions = ["@frank/source", "import", "module", "node", "default"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@frank/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["test/install/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // PGlite instances are heavy; two cores on our machines.
    maxWorkers: 2,
    minWorkers: 1
  }
})
