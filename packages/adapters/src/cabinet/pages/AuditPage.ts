/**
 * Audit log: the partner's own records, newest first (who, what, to what, from which request,
 * which fields), filtered by action and dates, paged by the log's keyset cursor ("older"). The
 * query is read as the partner API reads `GET /v1/audit-log`, so both show the same pages.
 */
import { Audit } from "@frank/core"
import { auditQuery } from "@frank/core/http"
import { Effect, Either } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { emptyState, formatDate, html, htmlResponse, page } from "../html.js"
import { type CabinetRoute, get } from "../routes.js"

const PAGE_SIZE = 20

/** The actions the filter offers; an action the query names outside this list is offered too. */
export const KNOWN_ACTIONS = [
  "api_key.issued",
  "api_key.renamed",
  "api_key.narrowed",
  "api_key.revoked",
  "session.created",
  "session.signed_in",
  "session.ended",
  "webhook_endpoint.created",
  "webhook_endpoint.updated",
  "webhook_endpoint.paused",
  "webhook_endpoint.resumed",
  "webhook_endpoint.secret_rotated",
  "webhook_endpoint.deleted",
  "webhook_endpoint.recovered",
  "webhook_endpoint.tested",
  "webhook_delivery.replayed",
  "company_profile.updated",
  "invoice.created",
  "invoice.sbp_link_created",
  "top_up_link.created",
  "credit.added",
  "balance_alert.created",
  "balance_alert.deleted",
  "tariff.assigned"
]

const FILTERS = ["action", "dateFrom", "dateTo"] as const

/** The filter fields the query sets (empty inputs are no filter). */
const filtersOf = (q: URLSearchParams) =>
  Object.fromEntries(FILTERS.map((k) => [k, q.get(k) ?? ""] as const).filter(([, v]) => v !== "")) as Partial<
    Record<(typeof FILTERS)[number], string>
  >

const linkQuery = (fields: Record<string, string | undefined>) =>
  Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== "")
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join("&")

const filterForm = (ctx: CabinetContext) => {
  const t = ctx.t.audit
  const chosen = ctx.query.get("action") ?? ""
  const actions = KNOWN_ACTIONS.includes(chosen) || chosen === "" ? KNOWN_ACTIONS : [chosen, ...KNOWN_ACTIONS]
  const options = actions.map(
    (a) => html`<option value="${a}"${a === chosen ? " selected" : ""}>${ctx.t.labels.auditActions[a] ?? a}</option>`
  )
  return html`<form method="get" action="${ctx.base}/audit" class="inline" data-testid="audit-filter">
<label for="audit-action">${t.action}</label> <select id="audit-action" name="action"><option value="">${t.allActions}</option>${options}</select>
<label for="audit-from">${t.dateFrom}</label> <input id="audit-from" type="date" name="dateFrom" value="${ctx.query.get("dateFrom")}">
<label for="audit-to">${t.dateTo}</label> <input id="audit-to" type="date" name="dateTo" value="${ctx.query.get("dateTo")}">
<button type="submit">${ctx.t.filter}</button></form>`
}

const actorText = (ctx: CabinetContext, a: Audit.AuditActor) => {
  const kind = ctx.t.audit.actors[a.type] ?? a.type
  // A session's label is the engine's fixed English name for it; the kind already says it.
  return a.label === null || a.type === "session" ? kind : `${kind}: ${a.label}`
}

const row = (ctx: CabinetContext, r: Audit.AuditRecord) =>
  html`<tr data-testid="audit-row" data-action="${r.action}" data-target="${r.target.id}">
<td class="nowrap">${formatDate(ctx.t, r.at)}</td><td>${actorText(ctx, r.actor)}</td><td>${ctx.t.labels.auditActions[r.action] ?? html`<code>${r.action}</code>`}</td>
<td>${ctx.t.labels.auditTargets[r.target.type] ?? r.target.type} <code>${r.target.id}</code></td><td><code>${r.requestId ?? ctx.t.none}</code></td>
<td>${r.changes.length === 0 ? ctx.t.none : r.changes.join(", ")}</td></tr>`

const table = (ctx: CabinetContext, items: ReadonlyArray<Audit.AuditRecord>) => {
  const t = ctx.t.audit
  const heads = [t.at, t.actor, t.action, t.target, t.requestId, t.changes]
  return html`<div class="scroll"><table><thead><tr>${heads.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${items.map((r) => row(ctx, r))}</tbody></table></div>${items.length === 0 && emptyState(ctx.t.emptyStates.filtered, { href: `${ctx.base}/audit`, label: ctx.t.emptyStates.filteredNext })}`
}

/** "Newest" back to the first page when paging; "older" while the log has more. */
const pager = (ctx: CabinetContext, nextCursor: string | null) => {
  const filters = filtersOf(ctx.query)
  const first =
    ctx.query.get("cursor") === null
      ? ""
      : html`<a href="${ctx.base}/audit?${linkQuery(filters)}" rel="first">${ctx.t.audit.newest}</a>`
  const older =
    nextCursor === null
      ? ""
      : html`<a href="${ctx.base}/audit?${linkQuery({ ...filters, cursor: nextCursor })}" rel="next" data-testid="audit-older">${ctx.t.audit.older}</a>`
  return first === "" && older === ""
    ? ""
    : html`<nav aria-label="${ctx.t.audit.title}" class="inline"><p>${first} ${older}</p></nav>`
}

export const auditRoutes = Effect.gen(function* () {
  const log = yield* Audit.AuditLog

  const list = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const t = ctx.t.audit
      const cursor = ctx.query.get("cursor") ?? ""
      const parsed = auditQuery({
        ...filtersOf(ctx.query),
        cursor: cursor === "" ? undefined : cursor,
        limit: PAGE_SIZE
      })
      if (Either.isLeft(parsed))
        return htmlResponse(
          page(ctx, "audit", t.title, html`<section>${filterForm(ctx)}</section>`, { kind: "error", text: parsed.left })
        )
      const result = yield* Effect.orDie(log.list(ctx.partnerId, parsed.right.query, parsed.right.after))
      return htmlResponse(
        page(
          ctx,
          "audit",
          t.title,
          html`<section>${filterForm(ctx)}${table(ctx, result.items)}${pager(ctx, result.nextCursor)}</section>`
        )
      )
    })

  const routes: ReadonlyArray<CabinetRoute> = [get("/audit", list)]
  return routes
})
