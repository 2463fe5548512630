#!/usr/bin/env node
// The `frank` operator CLI. Installed, it runs the compiled JavaScript in dist/. In a source
// checkout started with `node --conditions=@frank/source` (tests, development) the export resolves
// to the TypeScript entry, which tsx (a devDependency of the repository) then loads.
const entry = import.meta.resolve("@frank/host/cli")
if (entry.endsWith(".ts")) {
  const { register } = await import("tsx/esm/api")
  register()
}
await import(entry)
