/**
 * HTML building blocks of the cabinet: escaping, the page shell (navigation, language switch,
 * sign-out), and the security headers every cabinet response carries. Pages are server-rendered;
 * the one external script only adds the copy buttons and the chart (CSP without inline scripts).
 */
import { HttpServerResponse } from "@effect/platform"
import type { Lang, Strings } from "./i18n.js"

export const esc = (value: string | number | null | undefined): string =>
  String(value ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c
  )

/** Strict policy: scripts, styles, images and forms only from this origin; no framing. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "cache-control": "no-store",
  // Not no-referrer: Chromium then sends `Origin: null` with the cabinet's own form posts.
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY"
}

export const htmlResponse = (body: string, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...securityHeaders, ...headers }
  })

export type Section = keyof Strings["nav"] &
  (
    | "overview"
    | "transactions"
    | "keys"
    | "webhooks"
    | "topups"
    | "invoices"
    | "tasks"
    | "prices"
    | "settings"
    | "audit"
  )

export const SECTIONS: ReadonlyArray<{ readonly id: Section; readonly path: string }> = [
  { id: "overview", path: "" },
  { id: "transactions", path: "/transactions" },
  { id: "keys", path: "/keys" },
  { id: "webhooks", path: "/webhooks" },
  { id: "topups", path: "/topups" },
  { id: "invoices", path: "/invoices" },
  { id: "tasks", path: "/tasks" },
  { id: "prices", path: "/prices" },
  { id: "settings", path: "/settings" },
  { id: "audit", path: "/audit" }
]

export interface PageFrame {
  readonly base: string
  readonly lang: Lang
  readonly t: Strings
  /** The path of this page (for the language switch). */
  readonly path: string
}

const head = (f: PageFrame, title: string) =>
  `<!doctype html>
<html lang="${f.lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · ${esc(f.t.appName)}</title>
<link rel="stylesheet" href="${f.base}/assets/cabinet.css">
<script src="${f.base}/assets/cabinet.js" defer></script></head>`

const langSwitch = (f: PageFrame) =>
  `<nav class="lang" aria-label="${esc(f.t.language)}">${(["ru", "en"] as const)
    .map((l) =>
      l === f.lang
        ? `<span aria-current="true">${l.toUpperCase()}</span>`
        : `<a href="${esc(f.path)}?lang=${l}" hreflang="${l}" lang="${l}">${l.toUpperCase()}</a>`
    )
    .join(" ")}</nav>`

/** A signed-in page: header with sections, language switch and sign-out; `notice` above the body. */
export const page = (f: PageFrame, section: Section, title: string, body: string, notice?: Notice): string => {
  const links = SECTIONS.map(
    (s) =>
      `<li><a href="${f.base}${s.path === "" ? "/" : s.path}"${s.id === section ? ' aria-current="page"' : ""}>${esc(f.t.nav[s.id])}</a></li>`
  ).join("")
  return `${head(f, title)}
<body><a class="skip" href="#main">${esc(f.t.skipToContent)}</a>
<header><span class="brand">${esc(f.t.appName)}</span>
<nav class="sections" aria-label="${esc(f.t.nav.label)}"><ul>${links}</ul></nav>
${langSwitch(f)}
<form method="post" action="${f.base}/sign-out" class="sign-out"><button type="submit" class="plain">${esc(f.t.signOut)}</button></form>
</header>
<main id="main"><h1>${esc(title)}</h1>
${noticeHtml(notice)}${body}</main></body></html>
`
}

/** A page outside the session (sign-in problems, signed out). */
export const barePage = (f: PageFrame, title: string, body: string): string =>
  `${head(f, title)}
<body><header><span class="brand">${esc(f.t.appName)}</span>${langSwitch(f)}</header>
<main id="main" class="bare"><h1>${esc(title)}</h1>${body}</main></body></html>
`

export interface Notice {
  readonly kind: "ok" | "error"
  readonly text: string | ReadonlyArray<string>
}

const noticeHtml = (n: Notice | undefined) => {
  if (n === undefined) return ""
  const lines = typeof n.text === "string" ? [n.text] : n.text
  const role = n.kind === "error" ? "alert" : "status"
  const content = lines.length === 1 ? esc(lines[0]) : `<ul>${lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>`
  return `<div class="notice ${n.kind}" role="${role}" data-testid="notice">${content}</div>\n`
}

/** A secret shown once, with a copy button (the script copies the text of `#id`). */
export const secretBox = (t: Strings, id: string, title: string, value: string, note: string) =>
  `<section class="secret" aria-labelledby="${id}-title"><h2 id="${id}-title">${esc(title)}</h2>
<p>${esc(note)}</p>
<p><code id="${id}" data-testid="${id}">${esc(value)}</code>
<button type="button" class="copy" data-copy="${id}" data-copied="${esc(t.copied)}">${esc(t.copy)}</button></p></section>`

export const formatDate = (t: Strings, ms: number | string | null | undefined): string => {
  if (ms === null || ms === undefined) return t.none
  const d = typeof ms === "string" ? new Date(ms) : new Date(ms)
  return (
    new Intl.DateTimeFormat(t.locale, { dateStyle: "short", timeStyle: "short", timeZone: "UTC" }).format(d) + " UTC"
  )
}

export const formatNumber = (t: Strings, n: number, digits = 2): string =>
  new Intl.NumberFormat(t.locale, { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(n)
