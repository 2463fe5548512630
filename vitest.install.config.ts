import { defineConfig } from "vitest/config"

// `npm run test:install`: the pack-install test. Apart from `npm test` because it builds, packs and
// installs from the registry (about a minute with a warm npm cache).
export default defineConfig({
  test: {
    include: ["test/install/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    maxWorkers: 1,
    minWorkers: 1
  }
})
