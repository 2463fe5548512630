// A plain-JavaScript embedder of the Promise API, run by the pack-install test on the installed
// tarballs with no TypeScript loader: createFrank on embedded PGlite, frank.fetch mounted in a
// node:http server, a partner with a credit and a key, and the balance asked over real HTTP with
// that key (and without it). Prints one JSON line with what the server answered.
import { createServer } from "node:http"
import { Readable } from "node:stream"
import { createFrank } from "@frank/host/embed"

let frank
// Node's (req, res) to frank.fetch and back: what a Fetch-style mount needs in node:http.
const server = createServer(async (req, res) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers))
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) headers.append(name, v)
  const hasBody = req.method !== "GET" && req.method !== "HEAD"
  const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host}`), {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req), duplex: "half" } : {})
  })
  const response = await frank.fetch(request)
  res.writeHead(response.status, Object.fromEntries(response.headers))
  res.end(Buffer.from(await response.arrayBuffer()))
})
await new Promise((done) => server.listen(0, "127.0.0.1", done))
const base = `http://127.0.0.1:${server.address().port}`

try {
  frank = await createFrank({ embedded: "memory", pepper: "install-test-pepper-0123456789", publicBaseUrl: base })
  const partner = await frank.partners.create("Installed")
  await frank.ledger.credit(partner.id, { kind: "topup", amountMinor: 12_345, reference: "install-1" })
  const key = (await frank.keys.issue(partner.id, { label: "install test" })).raw
  const withKey = await fetch(`${base}/v1/billing/balance`, { headers: { "x-api-key": key } })
  const withoutKey = await fetch(`${base}/v1/billing/balance`)
  console.log(
    JSON.stringify({
      withKey: { status: withKey.status, body: await withKey.json() },
      withoutKey: { status: withoutKey.status, body: await withoutKey.json() }
    })
  )
} finally {
  server.closeAllConnections()
  await new Promise((done) => server.close(done))
  await frank?.close()
}
