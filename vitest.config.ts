import { defineConfig } from "vitest/config"

// Tests run on the TypeScript sources: `@frank/*` exports resolve under this condition to src/.
// Only "node" besides: Vite's default "module" would pick bundler builds (mediainfo.js's fetches its WASM).
const conditions = ["@frank/source", "node"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["test/install/**", "**/node_modules/**"],
    setupFiles: ["test/setup/tokenizer.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // PGlite instances are heavy; two cores on our machines.
    maxWorkers: 2,
    minWorkers: 1
  }
})
