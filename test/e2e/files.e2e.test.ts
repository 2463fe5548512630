/**
 * End-to-end: media import through the real host process, as the README's curl walk-through
 * does it. The corpus is served by a local HTTPS server with a self-signed certificate; the host
 * runs with the dev flag (FRANK_ALLOW_PRIVATE_NETWORK, so localhost is reachable) and trusts the
 * certificate through NODE_EXTRA_CA_CERTS, so TLS is verified as in production.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { fixture, type MediaServer, startMediaServer } from "../support/mediaServer.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

let host: RunningHost
let media: MediaServer
let caDir: string
const admin = () => ({ authorization: `Bearer ${host.adminToken}` })

beforeAll(async () => {
  media = await startMediaServer()
  caDir = mkdtempSync(join(tmpdir(), "frank-ca-"))
  writeFileSync(join(caDir, "ca.pem"), media.ca)
  host = await spawnHost({
    FRANK_ALLOW_PRIVATE_NETWORK: "true",
    FRANK_SANDBOX_CLOCK: "true",
    NODE_EXTRA_CA_CERTS: join(caDir, "ca.pem")
  })
}, 120_000)

afterAll(async () => {
  const code = await host?.stop()
  await media?.close()
  rmSync(caDir, { recursive: true, force: true })
  expect(code).toBe(0)
}, 60_000)

const newKey = async (name: string, body: object = {}) => {
  const p = await call(host, "POST", "/admin/v1/partners", { headers: admin(), body: { name } })
  const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin(), body: {} })
  const k = await call(host, "POST", "/v1/billing/api-keys", {
    headers: { cookie: `service_token=${s.json.token}` },
    body
  })
  expect(k.status, k.text).toBe(201)
  return { "x-api-key": k.json.key as string }
}

const importFile = (key: Record<string, string>, body: object) =>
  call(host, "POST", "/service/jobs/import", { headers: key, body })

describe("import over HTTP", () => {
  it("imports each kind and serves it at its url with the sniffed content type", async () => {
    const key = await newKey("Media LLC")
    const cases = [
      {
        kind: "image",
        file: "image-exif-rotated.jpg",
        expect: { mimeType: "image/jpeg", width: 240, height: 320 },
        type: "image/jpeg"
      },
      {
        kind: "video",
        file: "video.mov",
        expect: { mimeType: "video/quicktime", width: 320, height: 240, durationSeconds: 2.002, fps: 29.97 },
        type: "video/quicktime"
      },
      { kind: "audio", file: "audio.wav", expect: { mimeType: "audio/wav", durationSeconds: 2 }, type: "audio/wav" },
      {
        kind: "document",
        file: "document-3pages.pdf",
        expect: { mimeType: "application/pdf", pageCount: 3 },
        type: "application/pdf"
      },
      {
        kind: "document",
        file: "document.md",
        expect: { mimeType: "text/markdown" },
        type: "text/markdown; charset=utf-8"
      }
    ]
    for (const c of cases) {
      const res = await importFile(key, { kind: c.kind, url: `${media.baseUrl}/fixtures/${c.file}` })
      expect(res.status, res.text).toBe(200)
      expect(res.json.success).toBe(true)
      const data = res.json.data
      expect(data).toEqual({
        storedFileId: data.storedFileId,
        url: data.url,
        kind: c.kind,
        sizeBytes: fixture(c.file).length,
        ...c.expect
      })
      expect(data.url).toBe(`${host.baseUrl}/files/${data.storedFileId}/${data.url.split("/").pop()}`)
      // The url needs no API key.
      const got = await fetch(data.url)
      expect(got.status).toBe(200)
      expect(got.headers.get("content-type")).toBe(c.type)
      expect(got.headers.get("content-length")).toBe(String(fixture(c.file).length))
      expect(got.headers.get("x-content-type-options")).toBe("nosniff")
      expect(Buffer.from(await got.arrayBuffer()).equals(fixture(c.file))).toBe(true)
    }
  })

  it("answers the stored record by storedFileId to its owner only; wrong tokens find nothing", async () => {
    const key = await newKey("Owner LLC")
    const first = await importFile(key, { kind: "image", url: `${media.baseUrl}/fixtures/image.png` })
    const { storedFileId, url } = first.json.data
    const again = await importFile(key, { kind: "image", storedFileId })
    expect(again.status).toBe(200)
    expect(again.json).toEqual(first.json)
    const mismatch = await importFile(key, { kind: "video", storedFileId })
    expect(mismatch.status).toBe(400)
    expect(mismatch.json).toMatchObject({ success: false, code: "IMPORT_KIND_MISMATCH", data: null })
    const stranger = await newKey("Stranger LLC")
    const foreign = await importFile(stranger, { kind: "image", storedFileId })
    expect(foreign.status).toBe(400)
    expect(foreign.json).toMatchObject({ success: false, code: "FILE_NOT_FOUND" })
    const tampered = await fetch(url.replace(/.$/, (c: string) => (c === "a" ? "b" : "a")))
    expect(tampered.status).toBe(404)
    expect((await tampered.json()).code).toBe("FILE_NOT_FOUND")
  })

  it("reports invalid requests and refused files in the generation envelope", async () => {
    const key = await newKey("Errors LLC")
    const missingKind = await importFile(key, { url: `${media.baseUrl}/fixtures/image.png` })
    expect(missingKind.status).toBe(400)
    expect(missingKind.json).toMatchObject({ success: false, code: "VALIDATION_FAILED" })
    const badKind = await importFile(key, { kind: "gif", url: `${media.baseUrl}/fixtures/image.gif` })
    expect(badKind.json).toMatchObject({ success: false, code: "VALIDATION_FAILED" })
    const both = await importFile(key, {
      kind: "image",
      url: `${media.baseUrl}/fixtures/image.png`,
      storedFileId: "6f1c1a52-5d1b-4c8e-9a3e-2b7d9f0c1e2a"
    })
    expect(both.json).toMatchObject({ success: false, code: "IMPORT_SOURCE_INVALID" })
    const html = await importFile(key, { kind: "image", url: `${media.baseUrl}/fixtures/page-html.png` })
    expect(html.status).toBe(400)
    expect(html.json).toMatchObject({ success: false, code: "IMPORT_FORMAT_UNSUPPORTED", data: null })
    const encrypted = await importFile(key, {
      kind: "document",
      url: `${media.baseUrl}/fixtures/document-encrypted.pdf`
    })
    expect(encrypted.json).toMatchObject({ success: false, code: "IMPORT_PDF_ENCRYPTED" })
  })

  it("needs the media:run scope", async () => {
    const key = await newKey("Reader LLC", { scopes: ["billing:read"] })
    const res = await importFile(key, { kind: "image", url: `${media.baseUrl}/fixtures/image.png` })
    expect(res.status).toBe(403)
    expect(res.json).toMatchObject({ success: false, code: "API_KEY_SCOPE_REQUIRED" })
  })

  it("the 11th import of a partner within a minute answers 429 with Retry-After", async () => {
    const key = await newKey("Busy Importer LLC")
    // Start at the beginning of a fresh fixed window, so all 11 requests fall into one minute.
    const advance = async (seconds: number) =>
      (await call(host, "POST", "/admin/v1/sandbox/clock/advance", { headers: admin(), body: { seconds } })).json
        .now as string
    await advance(60 - new Date(await advance(0)).getUTCSeconds())
    const first = await importFile(key, { kind: "audio", url: `${media.baseUrl}/fixtures/audio.ogg` })
    expect(first.status).toBe(200)
    expect(first.headers.get("ratelimit-limit")).toBe("10")
    for (let i = 2; i <= 10; i++) {
      const again = await importFile(key, { kind: "audio", storedFileId: first.json.data.storedFileId })
      expect(again.status, `import ${i}`).toBe(200)
    }
    const limited = await importFile(key, { kind: "audio", storedFileId: first.json.data.storedFileId })
    expect(limited.status).toBe(429)
    expect(limited.json).toMatchObject({ success: false, code: "RATE_LIMITED" })
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // The import limit is the partner's: billing with the same key still answers.
    expect((await call(host, "GET", "/v1/billing/balance", { headers: key })).status).toBe(200)
  })
})
