/**
 * Overview: the balance (total / used / reserved / available, the low-balance state), the credit
 * grants with what is left of them and the next expiries, the tariff with progress to the next
 * plan and its discount, and the 30-day spend chart from daily usage (drawn by uPlot from JSON
 * embedded in the page; the same figures as a table for screen readers and without JavaScript).
 */
import { Ledger, Money, Tariffs, Time } from "@frank/core"
import { Clock, Effect } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { formatDay, formatNumber, html, htmlResponse, page, raw } from "../html.js"
import { type CabinetRoute, get } from "../routes.js"
import { creditGrantsSection } from "./creditGrants.js"

const franks = (ctx: CabinetContext, n: number) => ctx.t.franks(formatNumber(ctx.t, n))

const card = (label: string, value: string, id: string) =>
  html`<div class="card"><div>${label}</div><div class="value" data-testid="${id}">${value}</div></div>`

export const overviewRoutes = Effect.gen(function* () {
  const ledger = yield* Ledger.Ledger
  const tariffs = yield* Tariffs.Tariffs

  const render = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const t = ctx.t.overview
      const [balance, tariff, grants] = yield* Effect.orDie(
        Effect.all([ledger.balance(ctx.partnerId), tariffs.view(ctx.partnerId), ledger.grants(ctx.partnerId)], {
          concurrency: 3
        })
      )
      const now = yield* Clock.currentTimeMillis
      const untilMs = Ledger.dayStart(now) + Time.DAY_MS
      const fromMs = untilMs - 30 * Time.DAY_MS
      const usage = Ledger.dailyUsageView(
        yield* Effect.orDie(ledger.usageByDay(ctx.partnerId, fromMs, untilMs)),
        fromMs,
        untilMs
      )
      const low = balance.isLow
        ? html`<p class="low" role="status" data-testid="low-balance">${t.low(franks(ctx, balance.lowBalanceThresholdFranks))}</p>`
        : ""
      const balanceSection = html`<section aria-labelledby="balance-title"><h2 id="balance-title">${t.balance}</h2>${low}
<div class="cards">${card(t.total, franks(ctx, balance.total), "balance-total")}${card(t.used, franks(ctx, balance.used), "balance-used")}${card(t.reserved, franks(ctx, balance.reserved), "balance-reserved")}${card(t.available, franks(ctx, balance.available), "balance-available")}</div></section>`
      const next = tariff.nextPlan === null ? undefined : Tariffs.tierOf(tariffs.config, tariff.nextPlan)
      const progress =
        next === undefined
          ? html`<p>${t.topPlan}</p>`
          : html`<p>${t.nextPlan(ctx.t.labels.plan[next.plan] ?? next.plan, next.discountPercent, franks(ctx, tariff.spendRequiredForNextPlan ?? 0))}</p>
<label>${t.progress} <progress max="${Money.minorToFranks(next.minLifetimeSpendMinor)}" value="${Math.min(tariff.lifetimeSpend, Money.minorToFranks(next.minLifetimeSpendMinor))}"></progress></label>`
      const tariffSection = html`<section aria-labelledby="tariff-title"><h2 id="tariff-title">${t.tariff}</h2>
<dl class="pairs"><dt>${t.plan}</dt><dd data-testid="plan">${ctx.t.labels.plan[tariff.plan] ?? tariff.plan}</dd><dt>${t.discount}</dt><dd>${tariff.discountPercent}%</dd><dt>${t.lifetimeSpend}</dt><dd>${franks(ctx, tariff.lifetimeSpend)}</dd></dl>${progress}</section>`
      const chartData = JSON.stringify({
        label: t.spend,
        days: usage.days.map((d) => ({ date: d.date, spend: d.spent }))
      })
      const rows = usage.days.map(
        (d) =>
          html`<tr><td class="nowrap"><time datetime="${d.date}">${formatDay(ctx.t, d.date)}</time></td><td class="num">${franks(ctx, d.spent)}</td></tr>`
      )
      const chartSection = html`<section aria-labelledby="chart-title"><h2 id="chart-title">${t.spendChart}</h2>
<link rel="stylesheet" href="${ctx.base}/assets/uplot.css">
<div id="spend-chart" class="chart" data-lib="${ctx.base}/assets/uplot.js" aria-hidden="true"></div>
<script type="application/json" id="spend-data">${raw(chartData.replace(/</g, "\\u003c"))}</script>
<details><summary>${t.chartFallback}</summary><table><thead><tr><th scope="col">${t.day}</th><th scope="col" class="num">${t.spend}</th></tr></thead><tbody>${rows}</tbody></table></details></section>`
      const grantsSection = creditGrantsSection(ctx, grants, balance.expiring)
      return htmlResponse(
        page(ctx, "overview", t.title, html`${balanceSection}${grantsSection}${tariffSection}${chartSection}`)
      )
    })

  const routes: ReadonlyArray<CabinetRoute> = [get("/", render)]
  return routes
})
