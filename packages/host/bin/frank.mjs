#!/usr/bin/env node
// The `frank` operator CLI. The packages ship TypeScript sources; tsx runs them.
import { register } from "tsx/esm/api"

register()
await import("../src/cli/bin.ts")
