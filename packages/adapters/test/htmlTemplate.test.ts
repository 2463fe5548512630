/**
 * The cabinet's `html` tag: every interpolation escaped, markup from `html`/`raw` kept as is,
 * arrays joined, empty values rendering nothing; a payload stays text wherever it is put.
 */
import { describe, expect, it } from "@effect/vitest"
import { escapeText, Html, html, join, raw } from "../src/cabinet/htmlTemplate.js"

const PAYLOAD = `<script>alert(1)</script>"onmouseover="alert(2)' &amp;`

describe("html tagged template", () => {
  it("escapes text interpolated into content and into quoted attributes", () => {
    const out = html`<p title="${PAYLOAD}">${PAYLOAD}</p>`.value
    const escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;onmouseover=&quot;alert(2)&#39; &amp;amp;"
    expect(out).toBe(`<p title="${escaped}">${escaped}</p>`)
    expect(out).not.toContain("<script")
    expect(out.match(/"/g)?.length).toBe(2)
  })

  it("keeps markup made by html and raw, and only that", () => {
    const inner = html`<b>${"<i>"}</b>`
    expect(html`<p>${inner}</p>`.value).toBe("<p><b>&lt;i&gt;</b></p>")
    expect(html`<p>${raw("<em>trusted</em>")}</p>`.value).toBe("<p><em>trusted</em></p>")
    // A plain string that looks like markup is still text.
    expect(html`<p>${"<b>bold</b>"}</p>`.value).toBe("<p>&lt;b&gt;bold&lt;/b&gt;</p>")
  })

  it("joins arrays, nested arrays and mixed fragments", () => {
    const items = ["a<", "b&"].map((x) => html`<li>${x}</li>`)
    expect(html`<ul>${items}</ul>`.value).toBe("<ul><li>a&lt;</li><li>b&amp;</li></ul>")
    expect(html`${[["x", html`<br>`], "<y>"]}`.value).toBe("x<br>&lt;y&gt;")
    expect(join([html`<code>a</code>`, "b>"], ", ").value).toBe("<code>a</code>, b&gt;")
    expect(join(["1", "2"], html`<br>`).value).toBe("1<br>2")
  })

  it("renders null, undefined and false as nothing and numbers as digits", () => {
    const on = false as boolean
    expect(html`[${null}${undefined}${on && html`<b>`}${0}${12n}${-1.5}]`.value).toBe("[012-1.5]")
  })

  it("makes Html only from html and raw, and a string never passes for one", () => {
    expect(html`x` instanceof Html).toBe(true)
    expect(String(html`<a>`)).toBe("<a>")
    expect(escapeText(`'"<>&`)).toBe("&#39;&quot;&lt;&gt;&amp;")
  })
})
