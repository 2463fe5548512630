/**
 * The SSRF corpus of the webhooks issue at the two pure layers: registration-time URL checks and
 * the address classification the dial-time guard will use.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { addressRange, isPublicAddress } from "../src/net/addressPolicy.js"
import { checkEndpointUrl } from "../src/net/endpointUrl.js"

const strict = { allowPrivateNetwork: false }
const code = (url: string, options = strict) => {
  const r = checkEndpointUrl(url, options)
  return Either.isLeft(r) ? r.left.code : "accepted"
}

describe("endpoint URL at registration", () => {
  it("accepts public https hosts", () => {
    expect(code("https://hooks.example.com/frank")).toBe("accepted")
    expect(code("https://api.partner.ru:8443/webhooks?x=1")).toBe("accepted")
  })

  it("refuses every IP literal notation, internal names, http and credentials", () => {
    const cases: Array<[string, string]> = [
      ["https://localhost/x", "WEBHOOK_URL_INTERNAL_HOST"],
      ["https://api.localhost/x", "WEBHOOK_URL_INTERNAL_HOST"],
      ["https://localhost../x", "WEBHOOK_URL_INTERNAL_HOST"],
      ["https://metadata/x", "WEBHOOK_URL_INTERNAL_HOST"],
      ["https://db.internal/x", "WEBHOOK_URL_INTERNAL_HOST"],
      ["https://printer.local/x", "WEBHOOK_URL_INTERNAL_HOST"],
      ["https://127.0.0.1/x", "WEBHOOK_URL_IP_LITERAL"],
      ["https://[::1]/x", "WEBHOOK_URL_IP_LITERAL"],
      ["https://[::ffff:127.0.0.1]/x", "WEBHOOK_URL_IP_LITERAL"],
      ["https://2130706433/x", "WEBHOOK_URL_IP_LITERAL"],
      ["https://0x7f.1/x", "WEBHOOK_URL_IP_LITERAL"],
      ["https://017700000001/x", "WEBHOOK_URL_IP_LITERAL"],
      ["https://10.1.2.3/x", "WEBHOOK_URL_IP_LITERAL"],
      ["https://169.254.169.254/latest/meta-data", "WEBHOOK_URL_IP_LITERAL"],
      ["https://100.64.0.7/x", "WEBHOOK_URL_IP_LITERAL"],
      ["https://8.8.8.8/x", "WEBHOOK_URL_IP_LITERAL"],
      ["http://hooks.example.com/x", "WEBHOOK_URL_NOT_HTTPS"],
      ["ftp://hooks.example.com/x", "WEBHOOK_URL_NOT_HTTPS"],
      ["https://user:pw@hooks.example.com/x", "WEBHOOK_URL_CREDENTIALS"],
      ["not a url", "WEBHOOK_URL_INVALID"],
      [`https://hooks.example.com/${"a".repeat(2100)}`, "WEBHOOK_URL_INVALID"]
    ]
    for (const [url, expected] of cases) expect(code(url), url).toBe(expected)
  })

  it("the development flag allows http and local receivers, never credentials", () => {
    const dev = { allowPrivateNetwork: true }
    expect(code("http://127.0.0.1:9999/hook", dev)).toBe("accepted")
    expect(code("http://localhost:9999/hook", dev)).toBe("accepted")
    expect(code("http://u:p@localhost/hook", dev)).toBe("WEBHOOK_URL_CREDENTIALS")
    expect(code("ftp://localhost/hook", dev)).toBe("WEBHOOK_URL_NOT_HTTPS")
  })
})

describe("address classification for dial-time checks", () => {
  it("only public unicast addresses pass, whatever the notation", () => {
    for (const ip of [
      "127.0.0.1",
      "127.0.0.2",
      "::1",
      "::ffff:127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::",
      "224.0.0.1",
      "fc00::1",
      "fe80::1",
      "2130706433",
      "0x7f.1"
    ])
      expect(isPublicAddress(ip), ip).toBe(false)
    for (const ip of ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect(isPublicAddress(ip), ip).toBe(true)
    expect(addressRange("::ffff:10.0.0.1")).toBe("private")
    expect(isPublicAddress("hooks.example.com")).toBe(false)
  })
})
