/**
 * Settings: the partner's balance alerts (list, create, delete). The same Ledger service as
 * `/v1/billing/alerts`, so the limits are the engine's (1..10,000,000 ₣, at most 5); the form's
 * own check only words a typo before the engine sees it. Each state change of an alert is a
 * `billing.balance_alert` event, which the page says next to the form.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Ledger, Money } from "@frank/core"
import { idOr } from "@frank/core/http"
import { Effect, Schema } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { formBody, redirect } from "../CabinetRequest.js"
import { badge } from "../badges.js"
import { emptyState, formatDate, formatNumber, html, htmlResponse, type Notice, page } from "../html.js"
import { type CabinetRoute, doneNotice, errorText, get, orDieOnStore, post } from "../routes.js"

const MAX_ALERTS = 5
const MIN_FRANKS = 1
const MAX_FRANKS = 10_000_000

/**
 * The threshold field as minor units: whole franks or with at most two decimals (a comma as the
 * decimal mark too, as Russian keyboards type it), within the engine's range; undefined otherwise.
 */
const parseThreshold = (raw: string): number | undefined => {
  const text = raw.trim().replace(/\s/g, "").replace(",", ".")
  if (!/^\d{1,8}(\.\d{1,2})?$/.test(text)) return undefined
  const franks = Number(text)
  if (franks < MIN_FRANKS || franks > MAX_FRANKS) return undefined
  return Money.franksToMinor(franks)
}

const alertRow = (ctx: CabinetContext, a: Ledger.BalanceAlert) => {
  const t = ctx.t.settings
  const threshold = ctx.t.franks(formatNumber(ctx.t, Money.minorToFranks(a.thresholdMinor)))
  return html`<tr data-testid="alert-row" data-state="${a.state}"><td class="num nowrap" data-testid="alert-threshold">${threshold}</td>
<td data-testid="alert-state">${a.state === "triggered" ? badge("warn", t.triggered) : badge("ok", t.ok)}</td><td class="nowrap">${formatDate(ctx.t, a.createdAt)}</td>
<td class="nowrap"><form method="post" action="${ctx.base}/settings/alerts/${a.id}/delete"><button type="submit" class="danger" aria-label="${t.deleteAlert(threshold)}">${t.delete}</button></form></td></tr>`
}

/** A sentence that names an event: the name shown as the identifier it is. */
const eventNamed = (sentence: string, event: string) => {
  const [before = sentence, ...after] = sentence.split(event)
  return after.length === 0 ? sentence : html`${before}<code>${event}</code>${after.join(event)}`
}

const createForm = (ctx: CabinetContext, count: number, entered: string) => {
  const t = ctx.t.settings
  if (count >= MAX_ALERTS) return html`<p data-testid="alerts-full">${t.full}</p>`
  return html`<form method="post" action="${ctx.base}/settings/alerts" class="stack">
<label>${t.threshold} <input name="thresholdFranks" type="number" min="${MIN_FRANKS}" max="${MAX_FRANKS}" step="0.01" required inputmode="decimal" value="${entered}"></label>
<button type="submit">${t.create}</button></form>`
}

const render = (ctx: CabinetContext, alerts: ReadonlyArray<Ledger.BalanceAlert>, entered: string, notice?: Notice) => {
  const t = ctx.t.settings
  const table = html`<div class="scroll"><table class="whole-words"><caption>${t.quota(alerts.length)}</caption>
<thead><tr><th scope="col" class="num nowrap">${t.thresholdColumn}</th><th scope="col">${t.state}</th><th scope="col">${t.created}</th><th scope="col"><span class="sr-only">${t.delete}</span></th></tr></thead>
<tbody>${alerts.map((a) => alertRow(ctx, a))}</tbody></table></div>${alerts.length === 0 && emptyState(ctx.t.emptyStates.alerts, { href: "#alert-create", label: ctx.t.emptyStates.alertsNext })}`
  const section = html`<section aria-labelledby="alerts-title"><h2 id="alerts-title">${t.alerts}</h2>
<p>${eventNamed(t.alertsNote, "billing.balance_alert")}</p>${table}<h3 id="alert-create">${t.createTitle}</h3>${createForm(ctx, alerts.length, entered)}</section>`
  return page(ctx, "settings", t.title, section, notice)
}

export const settingsRoutes = Effect.gen(function* () {
  const ledger = yield* Ledger.Ledger
  const show = (ctx: CabinetContext, status: number, notice?: Notice, entered = "") =>
    Effect.map(Effect.orDie(ledger.alerts(ctx.partnerId)), (alerts) =>
      htmlResponse(render(ctx, alerts, entered, notice), status)
    )
  const failed =
    (ctx: CabinetContext, entered = "") =>
    (e: { readonly _tag: string; readonly code?: string; readonly message: string }) =>
      show(
        ctx,
        e._tag === "AlertNotFound" ? 404 : e._tag === "AlertLimitReached" ? 409 : 400,
        {
          kind: "error",
          text: errorText(ctx.t, e)
        },
        entered
      )
  // A malformed id names no alert: the same answer as a missing one, and SQL never sees it.
  const alertId = Effect.flatMap(HttpRouter.params, (p) =>
    idOr(Schema.UUID, p.id ?? "", () => ({
      _tag: "AlertNotFound" as const,
      code: "ALERT_NOT_FOUND",
      message: "no such balance alert"
    }))
  )

  const routes: ReadonlyArray<CabinetRoute> = [
    get("/settings", (ctx) => show(ctx, 200, doneNotice(ctx, ctx.t.settings.done))),
    post("/settings/alerts", (ctx) =>
      Effect.gen(function* () {
        const entered = ((yield* formBody).get("thresholdFranks") ?? "").trim().slice(0, 40)
        const thresholdMinor = parseThreshold(entered)
        if (thresholdMinor === undefined)
          return yield* show(ctx, 400, { kind: "error", text: ctx.t.settings.thresholdInvalid }, entered)
        return yield* orDieOnStore(ledger.createAlert(ctx.partnerId, thresholdMinor)).pipe(
          Effect.as(redirect(`${ctx.base}/settings?done=created`)),
          Effect.catchAll(failed(ctx, entered))
        )
      })
    ),
    post("/settings/alerts/:id/delete", (ctx) =>
      orDieOnStore(Effect.flatMap(alertId, (id) => ledger.deleteAlert(ctx.partnerId, id))).pipe(
        Effect.as(redirect(`${ctx.base}/settings?done=deleted`)),
        Effect.catchAll(failed(ctx))
      )
    )
  ]
  return routes
})
