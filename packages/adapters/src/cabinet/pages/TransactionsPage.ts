/**
 * Transactions: the ledger rows with filters (type, dates), pages, and the CSV download of the
 * same filter (the partner API's export: at most 10,000 rows, a `# truncated` line past that).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Ledger, Money } from "@frank/core"
import { Effect, Stream } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { emptyState, formatDate, formatNumber, html, htmlResponse, page } from "../html.js"
import { type CabinetRoute, get } from "../routes.js"

const PAGE_SIZE = 20

/** The filter of the query; a bad date is ignored (the date inputs only send valid ones). */
const filterOf = (q: URLSearchParams): Ledger.EntryFilter => {
  const type = Ledger.TransactionType.literals.find((t) => t === q.get("type"))
  const from = q.get("dateFrom")
  const to = q.get("dateTo")
  return {
    type,
    fromMs: from === null || from === "" ? undefined : Ledger.parseIsoBound(from, "from"),
    untilMs: to === null || to === "" ? undefined : Ledger.parseIsoBound(to, "to")
  }
}

const filterQuery = (q: URLSearchParams) =>
  ["type", "dateFrom", "dateTo"]
    .map((k) => [k, q.get(k) ?? ""] as const)
    .filter(([, v]) => v !== "")
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join("&")

const filters = (ctx: CabinetContext) => {
  const t = ctx.t.transactions
  const q = ctx.query
  const types = Ledger.TransactionType.literals.map(
    (ty) => html`<option value="${ty}"${q.get("type") === ty ? " selected" : ""}>${t.types[ty] ?? ty}</option>`
  )
  return html`<form method="get" action="${ctx.base}/transactions" class="inline">
<label>${t.type} <select name="type"><option value="">${t.allTypes}</option>${types}</select></label>
<label>${t.dateFrom} <input type="date" name="dateFrom" value="${q.get("dateFrom")}"></label>
<label>${t.dateTo} <input type="date" name="dateTo" value="${q.get("dateTo")}"></label>
<button type="submit">${ctx.t.filter}</button>
<a class="button" href="${ctx.base}/transactions.csv?${filterQuery(q)}" download data-testid="csv">${t.csv}</a></form>`
}

const row = (ctx: CabinetContext, e: Ledger.LedgerEntry) => {
  const t = ctx.t.transactions
  return html`<tr data-testid="transaction-row"><td class="nowrap">${formatDate(ctx.t, e.occurredAt)}</td><td>${t.types[e.type] ?? e.type}</td>
<td>${ctx.t.labels.entryKind[e.kind] ?? e.kind}</td><td class="num">${ctx.t.franks(formatNumber(ctx.t, Money.minorToFranks(e.amountMinor)))}</td><td>${e.description || e.label}</td></tr>`
}

/** No rows: with a filter, the way back to all of them; without, where the first row comes from. */
const emptyNext = (ctx: CabinetContext) => {
  const e = ctx.t.emptyStates
  return filterQuery(ctx.query) === ""
    ? emptyState(e.transactions, { href: `${ctx.base}/topups`, label: e.transactionsNext })
    : emptyState(e.filtered, { href: `${ctx.base}/transactions`, label: e.filteredNext })
}

const pager = (ctx: CabinetContext, pageNo: number, pages: number) => {
  const link = (n: number, text: string, rel: string) =>
    html`<a href="${ctx.base}/transactions?${filterQuery(ctx.query)}${filterQuery(ctx.query) === "" ? "" : "&"}page=${n}" rel="${rel}">${text}</a>`
  return html`<nav aria-label="${ctx.t.pageOf(pageNo, pages)}" class="inline"><p>${pageNo > 1 ? link(pageNo - 1, ctx.t.previous, "prev") : ""}
 <span data-testid="page-of">${ctx.t.pageOf(pageNo, pages)}</span> ${pageNo < pages ? link(pageNo + 1, ctx.t.next, "next") : ""}</p></nav>`
}

export const transactionsRoutes = Effect.gen(function* () {
  const ledger = yield* Ledger.Ledger

  const list = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const t = ctx.t.transactions
      const pageNo = Math.max(1, Math.floor(Number(ctx.query.get("page") ?? "1")) || 1)
      const result = yield* Effect.orDie(
        ledger.listEntries(ctx.partnerId, filterOf(ctx.query), (pageNo - 1) * PAGE_SIZE, PAGE_SIZE)
      )
      const pages = Math.max(1, Math.ceil(result.total / PAGE_SIZE))
      const table = html`<div class="scroll"><table><thead><tr><th scope="col">${t.date}</th><th scope="col">${t.type}</th><th scope="col">${t.kind}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.description}</th></tr></thead>
<tbody>${result.items.map((e) => row(ctx, e))}</tbody></table></div>${result.items.length === 0 && emptyNext(ctx)}`
      return htmlResponse(
        page(ctx, "transactions", t.title, html`<section>${filters(ctx)}${table}${pager(ctx, pageNo, pages)}</section>`)
      )
    })

  const csv = (ctx: CabinetContext) =>
    Effect.sync(() => {
      const filter = filterOf(ctx.query)
      const body = Ledger.csvExportStream(
        ledger.streamEntries(ctx.partnerId, filter, Ledger.CSV_EXPORT_MAX_ROWS),
        ledger.countEntries(ctx.partnerId, filter)
      )
      return HttpServerResponse.stream(Stream.encodeText(Stream.orDie(body)), {
        contentType: "text/csv; charset=utf-8",
        headers: { "content-disposition": 'attachment; filename="transactions.csv"', "cache-control": "no-store" }
      })
    })

  const routes: ReadonlyArray<CabinetRoute> = [get("/transactions", list), get("/transactions.csv", csv)]
  return routes
})
