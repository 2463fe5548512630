import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // PGlite instances are heavy; two cores on our machines.
    maxWorkers: 2,
    minWorkers: 1
  }
})
