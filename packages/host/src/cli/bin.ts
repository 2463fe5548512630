/** Entry of the `frank` bin (through bin/frank.mjs): run, then leave with the CLI's exit code. */
import { run } from "./main.js"

// exitCode rather than exit(): lets stdout drain when it is a pipe.
process.exitCode = await run(process.argv.slice(2))
