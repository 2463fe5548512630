/**
 * HTML building blocks of the cabinet: the `html` tag (re-exported), the page shell (navigation,
 * language switch, sign-out), and the security headers every cabinet response carries. Pages are
 * server-rendered; the one external script only adds the copy buttons and the chart (CSP without
 * inline scripts).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { type Html, html } from "./htmlTemplate.js"
import type { Lang, Strings } from "./i18n.js"

export { Html, html, join, raw } from "./htmlTemplate.js"

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

export const htmlResponse = (body: Html, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(body.value, {
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
  /** Whose cabinet it is, for the header (signed-in pages only). */
  readonly account?: { readonly name: string; readonly plan: string } | undefined
}

const head = (f: PageFrame, title: string) =>
  html`<!doctype html>
<html lang="${f.lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${f.t.appName}</title>
<link rel="stylesheet" href="${f.base}/assets/cabinet.css">
<script src="${f.base}/assets/cabinet.js" defer></script></head>`

const langSwitch = (f: PageFrame) =>
  html`<nav class="lang" aria-label="${f.t.language}">${(["ru", "en"] as const).map((l, i) => [
    i > 0 ? " " : "",
    l === f.lang
      ? html`<span aria-current="true">${l.toUpperCase()}</span>`
      : html`<a href="${f.path}?lang=${l}" hreflang="${l}" lang="${l}">${l.toUpperCase()}</a>`
  ])}</nav>`

/** A signed-in page: header with sections, language switch and sign-out; `notice` above the body. */
export const page = (f: PageFrame, section: Section, title: string, body: Html, notice?: Notice): Html => {
  const links = SECTIONS.map(
    (s) =>
      html`<li><a href="${f.base}${s.path === "" ? "/" : s.path}" ${s.id === section && html`aria-current="page"`}>${f.t.nav[s.id]}</a></li>`
  )
  return html`${head(f, title)}
<body data-busy="${f.t.busy}"><a class="skip" href="#main">${f.t.skipToContent}</a>
<header><span class="brand">${f.t.appName}</span>${accountHtml(f)}
<nav class="sections" aria-label="${f.t.nav.label}"><ul>${links}</ul></nav>
${langSwitch(f)}
<form method="post" action="${f.base}/sign-out" class="sign-out"><button type="submit" class="plain">${f.t.signOut}</button></form>
</header>
<main id="main"><h1>${title}</h1>
${noticeHtml(notice)}${body}</main></body></html>
`
}

/** The partner's name and plan, linking to the overview's tariff. */
const accountHtml = (f: PageFrame) =>
  f.account === undefined
    ? ""
    : html`<span class="account" data-testid="account"><span class="account-name">${f.account.name}</span>
<a class="badge info plan" href="${f.base}/#tariff-title" data-testid="account-plan">${f.t.planBadge(f.t.labels.plan[f.account.plan] ?? f.account.plan)}</a></span>`

/** A page outside the session (sign-in problems, signed out). */
export const barePage = (f: PageFrame, title: string, body: Html): Html =>
  html`${head(f, title)}
<body><header><span class="brand">${f.t.appName}</span>${langSwitch(f)}</header>
<main id="main" class="bare"><h1>${title}</h1>${body}</main></body></html>
`

export interface Notice {
  readonly kind: "ok" | "error"
  readonly text: string | ReadonlyArray<string>
}

const noticeHtml = (n: Notice | undefined) => {
  if (n === undefined) return ""
  const lines = typeof n.text === "string" ? [n.text] : n.text
  const role = n.kind === "error" ? "alert" : "status"
  const content = lines.length === 1 ? lines[0] : html`<ul>${lines.map((l) => html`<li>${l}</li>`)}</ul>`
  return html`<div class="notice ${n.kind}" role="${role}" data-testid="notice">${content}</div>\n`
}

/**
 * An empty list as a next step: what is missing and, when the page offers it, a link to where the
 * partner starts (a form below, another section).
 */
export const emptyState = (text: string, next?: { readonly href: string; readonly label: string }) =>
  html`<div class="empty" data-testid="empty"><p>${text}</p>${next === undefined ? "" : html`<p><a class="button" href="${next.href}">${next.label}</a></p>`}</div>`

/** A secret shown once, with a copy button (the script copies the text of `#id`). */
export const secretBox = (t: Strings, id: string, title: string, value: string, note: string) =>
  html`<section class="secret" aria-labelledby="${id}-title"><h2 id="${id}-title">${title}</h2>
<p>${note}</p>
<p><code id="${id}" data-testid="${id}">${value}</code>
<button type="button" class="copy" data-copy="${id}" data-copied="${t.copied}">${t.copy}</button></p></section>`

export const formatDate = (t: Strings, ms: number | string | null | undefined): string => {
  if (ms === null || ms === undefined) return t.none
  const d = typeof ms === "string" ? new Date(ms) : new Date(ms)
  return (
    new Intl.DateTimeFormat(t.locale, { dateStyle: "short", timeStyle: "short", timeZone: "UTC" }).format(d) + " UTC"
  )
}

export const formatNumber = (t: Strings, n: number, digits = 2): string =>
  new Intl.NumberFormat(t.locale, { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(n)

/** A calendar day (`YYYY-MM-DD`, UTC) in the page's language, e.g. "27 Nov 2026" / "27 нояб. 2026 г.". */
export const formatDay = (t: Strings, isoDay: string): string =>
  new Intl.DateTimeFormat(t.locale, { dateStyle: "medium", timeZone: "UTC" }).format(new Date(`${isoDay}T00:00:00Z`))
