// Which copies of `effect` does a process load that embeds Frank next to the app's own Effect?
// Records every module resolved inside a package named `effect` (effect-loads.mjs), runs the
// engine program (engine.mjs: ledger, estimate, webhook retries) and loads every entry point of
// core and adapters, then prints the package folders those modules came from as JSON, and the
// version each one holds.
import { readFileSync } from "node:fs"
import { register } from "node:module"
import { fileURLToPath } from "node:url"
import { MessageChannel } from "node:worker_threads"

const { port1, port2 } = new MessageChannel()
register("./effect-loads.mjs", import.meta.url, { data: { port: port2 }, transferList: [port2] })

await import("./engine.mjs")
await import("@frank/core/http")
await import("@frank/adapters")
const urls = await new Promise((answer) => {
  port1.once("message", answer)
  port1.postMessage("report")
})
port1.close()
const roots = [...new Set(urls.map((u) => fileURLToPath(u).replace(/(\/node_modules\/effect)\/.*$/, "$1")))]
const copies = roots.map((root) => ({
  root,
  version: JSON.parse(readFileSync(`${root}/package.json`, "utf8")).version
}))
console.log(JSON.stringify({ modules: urls.length, copies }))
