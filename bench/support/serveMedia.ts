/**
 * Runs the test media server (test/support/mediaServer.ts) in a process of its own for
 * bench/import, so the benchmark's memory figures are the importer's alone. Serves the files named
 * on the command line (name=path) at /extra/<name>; prints one JSON line {port, ca}; exits when
 * its standard input closes.
 */
import { startMediaServer } from "../../test/support/mediaServer.js"

const extra = Object.fromEntries(process.argv.slice(2).map((arg) => arg.split("=") as [string, string]))
const server = await startMediaServer({ extra })
process.stdout.write(`${JSON.stringify({ port: server.port, ca: server.ca })}\n`)
process.stdin.resume()
process.stdin.on("end", () => {
  void server.close().then(() => process.exit(0))
})
