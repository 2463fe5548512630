/**
 * One webhook endpoint: its URL and subscriptions, health, success rate and latency over 24 hours
 * and 7 days (webhookChart.ts), the signature scheme with the rotation rule, recovery of a window
 * of failed deliveries (with what remains and a "continue" that repeats the same window), and
 * pause / resume, rotate, test and delete.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Ids, Time, Webhooks, WebhookSigning } from "@frank/core"
import { idOr } from "@frank/core/http"
import { Clock, Effect } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { formBody, redirect } from "../CabinetRequest.js"
import { formatDate, formatNumber, type Html, html, htmlResponse, type Notice, page, secretBox } from "../html.js"
import { type CabinetRoute, doneNotice, errorText, get, orDieOnStore, post } from "../routes.js"
import { attemptChart } from "./webhookChart.js"

type Failure = {
  code?: string
  message: string
  status?: number
  messages?: ReadonlyArray<string>
  issues?: ReadonlyArray<{
    readonly code: string
    readonly days?: number | undefined
    readonly at?: string | undefined
  }>
}

/** A `datetime-local` value (no zone) is read as UTC, as the labels say; anything else goes to the rule as typed. */
export const utcInstant = (raw: string | undefined): string | undefined => {
  const text = (raw ?? "").trim()
  if (text === "") return undefined
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text) ? `${text.length === 16 ? `${text}:00` : text}Z` : text
}

/** An instant as a `datetime-local` value (minutes, UTC), or empty. */
const localValue = (iso: string | undefined) =>
  iso !== undefined && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? iso.slice(0, 16) : ""

const summary = (ctx: CabinetContext, e: Webhooks.WebhookEndpoint) => {
  const t = ctx.t.portal
  const w = ctx.t.webhooks
  const state = e.active ? w.active : w.paused
  return html`<section aria-labelledby="summary-title"><h2 id="summary-title">${t.summary}</h2><dl>
<dt>${t.url}</dt><dd data-testid="endpoint-url">${e.url}</dd>
<dt>${t.state}</dt><dd data-testid="endpoint-state">${state}</dd>
<dt>${t.subscriptions}</dt><dd>${e.eventTypes === null ? t.allEvents : e.eventTypes.join(", ")}</dd>
<dt>${t.created}</dt><dd>${formatDate(ctx.t, e.createdAt)}</dd></dl>
<p><a href="${ctx.base}/webhooks?endpointId=${e.id}">${t.deliveriesOf}</a></p></section>`
}

const health = (ctx: CabinetContext, e: Webhooks.WebhookEndpoint) => {
  const t = ctx.t.portal
  const h = e.health
  const reason = e.active ? t.notDisabled : h.disabledReason === "failing" ? t.disabledFailing : t.disabledByHand
  return html`<section aria-labelledby="health-title"><h2 id="health-title">${t.health}</h2><dl>
<dt>${t.lastSuccessAt}</dt><dd data-testid="last-success">${h.lastSuccessAt === null ? t.never : formatDate(ctx.t, h.lastSuccessAt)}</dd>
<dt>${t.failingSince}</dt><dd data-testid="failing-since">${formatDate(ctx.t, h.failingSince)}</dd>
<dt>${t.disabledReason}</dt><dd data-testid="disabled-reason">${reason}</dd></dl></section>`
}

const schemeForm = (ctx: CabinetContext, e: Webhooks.WebhookEndpoint) => {
  const t = ctx.t.portal
  const options = WebhookSigning.SignatureScheme.literals.map(
    (s) => html`<option value="${s}"${s === e.signatureScheme ? " selected" : ""}>${t.schemes[s] ?? s}</option>`
  )
  return html`<section aria-labelledby="scheme-title"><h2 id="scheme-title">${t.scheme}</h2>
<p><small>${t.schemeHint}</small></p>
<form method="post" action="${ctx.base}/webhooks/endpoints/${e.id}/scheme" class="inline"><label>${t.scheme} <select name="signatureScheme" data-testid="scheme" class="fit">${options}</select></label> <button type="submit">${t.setScheme}</button></form>
<p data-testid="rotation-rule">${t.rotationRule}</p></section>`
}

const recoverForm = (ctx: CabinetContext, e: Webhooks.WebhookEndpoint, done?: RecoveryShown) => {
  const t = ctx.t.portal
  const action = `${ctx.base}/webhooks/endpoints/${e.id}/recover`
  const result =
    done === undefined
      ? ""
      : html`<p role="status" data-testid="recovery" data-remaining="${done.remaining}">${t.recovered(formatNumber(ctx.t, done.requeued, 0), formatNumber(ctx.t, done.remaining, 0))}</p>
${done.remaining > 0 && html`<form method="post" action="${action}"><input type="hidden" name="since" value="${done.since}"><input type="hidden" name="until" value="${done.until}"><button type="submit">${t.continueRecovery}</button></form>`}`
  return html`<section aria-labelledby="recover-title"><h2 id="recover-title">${t.recover}</h2>
<p><small>${t.recoverHint}</small></p>${result}
<form method="post" action="${action}" class="stack">
<label>${t.since} <input name="since" type="datetime-local" required value="${localValue(done?.since)}"></label>
<label>${t.until} <input name="until" type="datetime-local" value="${localValue(done?.until)}"></label>
<button type="submit">${t.recoverButton}</button></form></section>`
}

interface RecoveryShown {
  readonly since: string
  readonly until: string
  readonly requeued: number
  readonly remaining: number
}

const actions = (ctx: CabinetContext, e: Webhooks.WebhookEndpoint) => {
  const w = ctx.t.webhooks
  const act = (path: string, label: string, cls = "") =>
    html`<form method="post" action="${ctx.base}/webhooks/endpoints/${e.id}/${path}"><button type="submit"${cls !== "" && html` class="${cls}"`}>${label}</button></form>`
  return html`<section aria-labelledby="actions-title"><h2 id="actions-title">${ctx.t.portal.actions}</h2>
<div class="actions">${act(e.active ? "pause" : "resume", e.active ? w.pause : w.resume)}${act("rotate", w.rotate)}${act("test", w.test)}${act("delete", w.delete, "danger")}</div></section>`
}

export const webhookEndpointRoutes = Effect.gen(function* () {
  const webhooks = yield* Webhooks.Webhooks
  const endpointId = Effect.flatMap(HttpRouter.params, (p) =>
    idOr(Ids.EndpointId, p.id ?? "", () => new Webhooks.EndpointNotFound({ message: "no such endpoint" }))
  )
  const path = (ctx: CabinetContext, id: string) => `${ctx.base}/webhooks/endpoints/${id}`

  const show = (ctx: CabinetContext, status: number, notice?: Notice, extra?: Html, recovery?: RecoveryShown) =>
    Effect.gen(function* () {
      const t = ctx.t.portal
      const found = yield* orDieOnStore(
        Effect.flatMap(endpointId, (id) => webhooks.getEndpoint(ctx.partnerId, id))
      ).pipe(Effect.either)
      if (found._tag === "Left")
        return htmlResponse(
          page(ctx, "webhooks", t.endpointTitle, html`<p>${errorText(ctx.t, found.left)}</p>`, undefined),
          404
        )
      const e = found.right
      const stats = yield* Effect.orDie(webhooks.endpointStats(ctx.partnerId, e.id))
      const charts = html`<section aria-labelledby="stats-title"><h2 id="stats-title">${t.stats}</h2>
${attemptChart(ctx, "chart-day", t.day, stats.day)}${attemptChart(ctx, "chart-week", t.week, stats.week)}</section>`
      const body = html`<p><a href="${ctx.base}/webhooks">${t.backToWebhooks}</a></p>${extra}${summary(ctx, e)}${health(ctx, e)}${charts}${schemeForm(ctx, e)}${recoverForm(ctx, e, recovery)}${actions(ctx, e)}`
      return htmlResponse(page(ctx, "webhooks", t.endpointTitle, body, notice), status)
    })
  const failed = (ctx: CabinetContext) => (e: Failure) =>
    show(ctx, e.status === 404 ? 404 : e.status === 409 ? 409 : 400, { kind: "error", text: errorText(ctx.t, e) })
  const action = <E extends { code?: string; message: string; _tag: string }>(
    name: string,
    run: (partnerId: Ids.PartnerId, id: Ids.EndpointId) => Effect.Effect<unknown, E>,
    done: string
  ) =>
    post(`/webhooks/endpoints/:id/${name}`, (ctx) =>
      orDieOnStore(Effect.flatMap(endpointId, (id) => Effect.as(run(ctx.partnerId, id), id))).pipe(
        Effect.map((id) =>
          redirect(name === "delete" ? `${ctx.base}/webhooks?done=deleted` : `${path(ctx, id)}?done=${done}`)
        ),
        Effect.catchAll((e) => failed(ctx)(e as Failure))
      )
    )

  const routes: ReadonlyArray<CabinetRoute> = [
    get("/webhooks/endpoints/:id", (ctx) =>
      show(ctx, 200, doneNotice(ctx, { ...ctx.t.webhooks.done, scheme: ctx.t.portal.schemeSaved }))
    ),
    action("pause", (p, id) => webhooks.updateEndpoint(p, id, { active: false }), "paused"),
    action("resume", (p, id) => webhooks.updateEndpoint(p, id, { active: true }), "resumed"),
    action("test", (p, id) => webhooks.sendTest(p, id), "tested"),
    action("delete", (p, id) => webhooks.deleteEndpoint(p, id), "deleted"),
    post("/webhooks/endpoints/:id/scheme", (ctx) =>
      Effect.gen(function* () {
        const raw = (yield* formBody).get("signatureScheme")
        const scheme = WebhookSigning.SignatureScheme.literals.find((s) => s === raw)
        return yield* orDieOnStore(
          Effect.flatMap(endpointId, (id) =>
            Effect.as(webhooks.updateEndpoint(ctx.partnerId, id, { signatureScheme: scheme }), id)
          )
        ).pipe(
          Effect.map((id) => redirect(`${path(ctx, id)}?done=scheme`)),
          Effect.catchAll((e) => failed(ctx)(e as Failure))
        )
      })
    ),
    post("/webhooks/endpoints/:id/rotate", (ctx) =>
      Effect.gen(function* () {
        const rotated = yield* orDieOnStore(
          Effect.flatMap(endpointId, (id) => webhooks.rotateSecret(ctx.partnerId, id))
        ).pipe(Effect.either)
        if (rotated._tag === "Left") return yield* failed(ctx)(rotated.left)
        const w = ctx.t.webhooks
        const now = yield* Clock.currentTimeMillis
        const until = formatDate(ctx.t, rotated.right.previousSecretValidUntil ?? now)
        const note = `${w.secretNote} ${w.rotateNote(until)}`
        const box = secretBox(ctx.t, "endpoint-secret", w.secretTitle, rotated.right.secret, note)
        return yield* show(ctx, 200, { kind: "ok", text: w.done.rotated ?? "" }, box)
      })
    ),
    post("/webhooks/endpoints/:id/recover", (ctx) =>
      Effect.gen(function* () {
        const form = yield* formBody
        const now = yield* Clock.currentTimeMillis
        const since = utcInstant(form.get("since")) ?? ""
        // "Until now" is pinned to this call, so "continue" repeats exactly this window.
        const until = utcInstant(form.get("until")) ?? Time.iso(now)
        const result = yield* orDieOnStore(
          Effect.flatMap(endpointId, (id) => webhooks.recover(ctx.partnerId, id, { since, until }))
        ).pipe(Effect.either)
        if (result._tag === "Left") return yield* failed(ctx)(result.left as Failure)
        return yield* show(ctx, 200, undefined, undefined, { since, until, ...result.right })
      })
    )
  ]
  return routes
})
