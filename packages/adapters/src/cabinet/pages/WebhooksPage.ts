/**
 * Webhooks: endpoints (create with the secret shown once, pause / resume, rotate with the overlap
 * explained, test, delete) and the delivery log (status filter, attempts, response codes, last
 * error, next attempt, replay with the spec's replay errors in words).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Events, Ids, Time, Webhooks } from "@frank/core"
import { idOr } from "@frank/core/http"
import { Clock, Effect, Option, Schema } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { formBody, redirect } from "../CabinetRequest.js"
import { badge, DELIVERY_TONES, statusBadge } from "../badges.js"
import { emptyState, formatDate, type Html, html, htmlResponse, type Notice, page, secretBox } from "../html.js"
import { type CabinetRoute, doneNotice, errorText, get, orDieOnStore, post } from "../routes.js"

/** Active, paused by the partner, or paused by the health rule (with since when it fails). */
const endpointState = (ctx: CabinetContext, e: Webhooks.WebhookEndpoint) => {
  const t = ctx.t.webhooks
  if (e.active) return badge("ok", t.active)
  return e.health.disabledReason === "failing"
    ? html`${badge("bad", t.paused)} ${t.pausedFailing(formatDate(ctx.t, e.health.failingSince))}`
    : badge("neutral", t.paused)
}

const endpointRow = (ctx: CabinetContext, e: Webhooks.WebhookEndpoint) => {
  const t = ctx.t.webhooks
  const act = (path: string, label: string, cls = "") =>
    html`<form method="post" action="${ctx.base}/webhooks/${e.id}/${path}"><button type="submit"${cls !== "" && html` class="${cls}"`}>${label}</button></form>`
  return html`<tr data-testid="endpoint-row" data-url="${e.url}"><td class="wrap"><a href="${ctx.base}/webhooks/endpoints/${e.id}" data-testid="endpoint-link">${e.url}</a></td>
<td>${e.eventTypes === null ? t.allEvents : e.eventTypes.join(", ")}</td>
<td data-testid="endpoint-state">${endpointState(ctx, e)}</td>
<td><form method="post" action="${ctx.base}/webhooks/${e.id}/rate" class="inline"><label><span class="sr-only">${t.rate}</span> <input name="rateLimitPerSecond" type="number" min="1" max="10000" step="1" size="6" value="${e.rateLimitPerSecond ?? ""}" placeholder="${t.unlimited}" data-testid="endpoint-rate"></label> <button type="submit">${t.setRate}</button></form></td>
<td class="actions">${act(e.active ? "pause" : "resume", e.active ? t.pause : t.resume)}${act("rotate", t.rotate)}${act("test", t.test)}${act("delete", t.delete, "danger")}</td></tr>`
}

const deliveryRow = (ctx: CabinetContext, d: Webhooks.DeliveryRecord) => {
  const t = ctx.t.webhooks
  const replayable = d.status === "delivered" || d.status === "uncertain" || d.status === "dead_lettered"
  return html`<tr data-testid="delivery-row" data-status="${d.status}"><td><a href="${ctx.base}/webhooks/deliveries/${d.id}" data-testid="delivery-link"><code>${d.eventType}</code></a><br><small><code>${d.eventId}</code></small></td>
<td data-testid="delivery-status">${statusBadge(ctx.t.labels.deliveryStatus, DELIVERY_TONES, d.status)}</td><td>${d.attempts}</td><td>${d.responseCodes.map((c) => c ?? "—").join(", ")}</td>
<td class="wrap">${d.lastError !== null && html`<code>${d.lastError}</code>`}</td><td class="nowrap">${d.status === "pending" ? formatDate(ctx.t, d.nextAttemptAt) : ""}</td>
<td class="nowrap">${formatDate(ctx.t, d.createdAt)}</td>
<td>${replayable ? html`<form method="post" action="${ctx.base}/webhooks/deliveries/${d.id}/replay"><button type="submit">${t.replay}</button></form>` : ""}</td></tr>`
}

/** The form's rate field: empty is unlimited; anything else goes to the service's check as a number. */
const rateField = (raw: string | null | undefined): number | null => {
  const text = (raw ?? "").trim()
  return text === "" ? null : Number(text)
}

const createForm = (ctx: CabinetContext) => {
  const t = ctx.t.webhooks
  return html`<section aria-labelledby="create-title"><h2 id="create-title">${t.createTitle}</h2>
<form method="post" action="${ctx.base}/webhooks" class="stack">
<label>${t.url} <input name="url" type="url" required placeholder="https://example.com/hooks/frank"></label>
<fieldset><legend>${t.events}</legend><p><small>${t.eventsHint}</small></p>
<ul class="events">${Events.allEventTypes.map((e) => html`<li><label><input type="checkbox" name="eventType" value="${e}"> <code>${e}</code></label> <small>${ctx.t.labels.eventTypes[e] ?? ""}</small></li>`)}</ul></fieldset>
<label>${t.rate} <input name="rateLimitPerSecond" type="number" min="1" max="10000" step="1" placeholder="${t.unlimited}"></label>
<p><small>${t.rateHint}</small></p>
<button type="submit">${t.create}</button></form></section>`
}

const deliveryLog = (
  ctx: CabinetContext,
  deliveries: ReadonlyArray<Webhooks.DeliveryRecord>,
  next: string | null,
  endpoints: ReadonlyArray<Webhooks.WebhookEndpoint>
) => {
  const t = ctx.t.webhooks
  const status = ctx.query.get("status") ?? ""
  const options = [html`<option value="">${t.allStatuses}</option>`].concat(
    Webhooks.DeliveryStatus.literals.map(
      (s) =>
        html`<option value="${s}"${s === status ? " selected" : ""}>${ctx.t.labels.deliveryStatus[s] ?? s}</option>`
    )
  )
  const query = new URLSearchParams()
  for (const name of logFilterNames) {
    const value = ctx.query.get(name)
    if (value !== null && value !== "") query.set(name, value)
  }
  if (next !== null) query.set("cursor", next)
  const more = next === null ? "" : html`<p><a href="${ctx.base}/webhooks?${query.toString()}">${t.more}</a></p>`
  return html`<section aria-labelledby="log-title"><h2 id="log-title">${t.deliveries}</h2>
<p><a href="${ctx.base}/webhooks/events" data-testid="catalog-link">${ctx.t.portal.catalogLink}</a></p>
<form method="get" action="${ctx.base}/webhooks" class="inline"><label>${t.status} <select name="status">${options}</select></label> ${logFilters(ctx, endpoints)} <button type="submit">${ctx.t.filter}</button></form>
<div class="scroll"><table class="free-first"><thead><tr><th scope="col">${t.event}</th><th scope="col">${t.status}</th><th scope="col">${t.attempts}</th><th scope="col">${t.codes}</th><th scope="col">${t.lastError}</th><th scope="col">${t.nextAttempt}</th><th scope="col">${t.created}</th><th scope="col"><span class="sr-only">${t.replay}</span></th></tr></thead>
<tbody>${deliveries.map((d) => deliveryRow(ctx, d))}</tbody></table></div>${deliveries.length === 0 && (status === "" ? emptyState(ctx.t.emptyStates.deliveries) : emptyState(ctx.t.emptyStates.filtered, { href: `${ctx.base}/webhooks`, label: ctx.t.emptyStates.filteredNext }))}${more}</section>`
}

/** The log's query parameters besides the cursor (kept by the "older" link). */
const logFilterNames = ["status", "eventType", "endpointId", "from", "to"] as const

const dayStart = (raw: string | null): number | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw ?? "")
  if (m === null) return undefined
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  return Number.isNaN(ms) ? undefined : ms
}

/** The delivery filter the query asks for; values that name nothing are left out. */
const logFilter = (ctx: CabinetContext): Webhooks.DeliveryFilter => {
  const q = ctx.query
  const to = dayStart(q.get("to"))
  return {
    status: Webhooks.DeliveryStatus.literals.find((s) => s === q.get("status")),
    eventType: Events.allEventTypes.find((e) => e === q.get("eventType")),
    endpointId: Option.getOrUndefined(Schema.decodeUnknownOption(Ids.EndpointId)(q.get("endpointId") ?? "")),
    createdFrom: dayStart(q.get("from")),
    // The "until" day is included: deliveries before the next midnight.
    createdBefore: to === undefined ? undefined : to + Time.DAY_MS
  }
}

const logFilters = (ctx: CabinetContext, endpoints: ReadonlyArray<Webhooks.WebhookEndpoint>) => {
  const f = ctx.t.portal.filters
  const type = ctx.query.get("eventType") ?? ""
  const endpoint = ctx.query.get("endpointId") ?? ""
  const option = (value: string, label: string, current: string) =>
    html`<option value="${value}"${value === current ? " selected" : ""}>${label}</option>`
  return html`<label>${f.eventType} <select name="eventType" class="fit">${option("", f.allTypes, type)}${Events.allEventTypes.map((e) => option(e, e, type))}</select></label>
<label>${f.endpoint} <select name="endpointId" class="fit">${option("", f.allEndpoints, endpoint)}${endpoints.map((e) => option(e.id, e.url, endpoint))}</select></label>
<label>${f.from} <input type="date" name="from" value="${ctx.query.get("from") ?? ""}"></label>
<label>${f.to} <input type="date" name="to" value="${ctx.query.get("to") ?? ""}"></label>`
}

export const webhooksRoutes = Effect.gen(function* () {
  const webhooks = yield* Webhooks.Webhooks
  // A malformed id names nothing: the same answer as a missing one.
  const endpointId = Effect.flatMap(HttpRouter.params, (p) =>
    idOr(Ids.EndpointId, p.id ?? "", () => new Webhooks.EndpointNotFound({ message: "no such endpoint" }))
  )
  const deliveryId = Effect.flatMap(HttpRouter.params, (p) =>
    idOr(Ids.DeliveryId, p.id ?? "", () => new Webhooks.DeliveryNotFound({ message: "no such delivery" }))
  )

  const show = (ctx: CabinetContext, status: number, notice?: Notice, extra?: Html) =>
    Effect.gen(function* () {
      const t = ctx.t.webhooks
      const endpoints = yield* Effect.orDie(webhooks.listEndpoints(ctx.partnerId))
      const filter = logFilter(ctx)
      const log = yield* webhooks.listDeliveries(ctx.partnerId, filter, 20, ctx.query.get("cursor") ?? undefined).pipe(
        Effect.catchTag("DeliveryCursorInvalid", () => webhooks.listDeliveries(ctx.partnerId, filter, 20, undefined)),
        Effect.orDie
      )
      const table = html`<section aria-labelledby="endpoints-title"><h2 id="endpoints-title">${t.endpoints}</h2>
<div class="scroll"><table class="free-first"><thead><tr><th scope="col">${t.url}</th><th scope="col">${t.events}</th><th scope="col">${t.state}</th><th scope="col">${t.rate}</th><th scope="col"><span class="sr-only">…</span></th></tr></thead>
<tbody>${endpoints.map((e) => endpointRow(ctx, e))}</tbody></table></div>${endpoints.length === 0 && emptyState(ctx.t.emptyStates.endpoints, { href: "#create-title", label: ctx.t.emptyStates.endpointsNext })}</section>`
      const next = log.next === null ? null : Webhooks.encodeCursor(log.next)
      const body = html`${extra}${table}${endpoints.length < 10 && createForm(ctx)}${deliveryLog(ctx, log.deliveries, next, endpoints)}`
      return htmlResponse(page(ctx, "webhooks", t.title, body, notice), status)
    })
  const failed =
    (ctx: CabinetContext) =>
    (e: { code?: string; message: string; status?: number; messages?: ReadonlyArray<string> }) =>
      show(ctx, e.status === 404 ? 404 : e.status === 409 ? 409 : 400, { kind: "error", text: errorText(ctx.t, e) })
  /** An endpoint action, then back to the page with its notice. */
  const action = <E extends { code?: string; message: string; _tag: string }>(
    path: string,
    run: (partnerId: Ids.PartnerId, id: Ids.EndpointId) => Effect.Effect<unknown, E>,
    done: string
  ) =>
    post(path, (ctx) =>
      orDieOnStore(Effect.flatMap(endpointId, (id) => run(ctx.partnerId, id))).pipe(
        Effect.as(redirect(`${ctx.base}/webhooks?done=${done}`)),
        Effect.catchAll((e) => failed(ctx)(e as never))
      )
    )

  const routes: ReadonlyArray<CabinetRoute> = [
    get("/webhooks", (ctx) => show(ctx, 200, doneNotice(ctx, ctx.t.webhooks.done))),
    post("/webhooks", (ctx) =>
      Effect.gen(function* () {
        const form = yield* formBody
        const types = form.getAll("eventType")
        const created = yield* orDieOnStore(
          webhooks.createEndpoint(ctx.partnerId, {
            url: (form.get("url") ?? "").trim(),
            eventTypes: types.length === 0 ? undefined : types,
            rateLimitPerSecond: rateField(form.get("rateLimitPerSecond"))
          })
        ).pipe(Effect.either)
        if (created._tag === "Left") return yield* failed(ctx)(created.left)
        const t = ctx.t.webhooks
        const box = secretBox(ctx.t, "endpoint-secret", t.secretTitle, created.right.secret, t.secretNote)
        return yield* show(ctx, 201, { kind: "ok", text: t.done.created ?? "" }, box)
      })
    ),
    action("/webhooks/:id/pause", (p, id) => webhooks.updateEndpoint(p, id, { active: false }), "paused"),
    action("/webhooks/:id/resume", (p, id) => webhooks.updateEndpoint(p, id, { active: true }), "resumed"),
    post("/webhooks/:id/rate", (ctx) =>
      Effect.gen(function* () {
        const rate = rateField((yield* formBody).get("rateLimitPerSecond"))
        return yield* orDieOnStore(
          Effect.flatMap(endpointId, (id) => webhooks.updateEndpoint(ctx.partnerId, id, { rateLimitPerSecond: rate }))
        ).pipe(
          Effect.as(redirect(`${ctx.base}/webhooks?done=rated`)),
          Effect.catchAll((e) => failed(ctx)(e as never))
        )
      })
    ),
    action("/webhooks/:id/test", (p, id) => webhooks.sendTest(p, id), "tested"),
    action("/webhooks/:id/delete", (p, id) => webhooks.deleteEndpoint(p, id), "deleted"),
    post("/webhooks/:id/rotate", (ctx) =>
      Effect.gen(function* () {
        const rotated = yield* orDieOnStore(
          Effect.flatMap(endpointId, (id) => webhooks.rotateSecret(ctx.partnerId, id))
        ).pipe(Effect.either)
        if (rotated._tag === "Left") return yield* failed(ctx)(rotated.left)
        const t = ctx.t.webhooks
        const now = yield* Clock.currentTimeMillis
        const until = formatDate(ctx.t, rotated.right.previousSecretValidUntil ?? now)
        const box = secretBox(
          ctx.t,
          "endpoint-secret",
          t.secretTitle,
          rotated.right.secret,
          `${t.secretNote} ${t.rotateNote(until)}`
        )
        return yield* show(ctx, 200, { kind: "ok", text: t.done.rotated ?? "" }, box)
      })
    ),
    post("/webhooks/deliveries/:id/replay", (ctx) =>
      orDieOnStore(Effect.flatMap(deliveryId, (id) => webhooks.replay(ctx.partnerId, id))).pipe(
        // From the message page, back to it.
        Effect.map((d) =>
          redirect(
            ctx.query.get("from") === "message"
              ? `${ctx.base}/webhooks/deliveries/${d.id}?done=replayed`
              : `${ctx.base}/webhooks?done=replayed`
          )
        ),
        Effect.catchAll(failed(ctx))
      )
    )
  ]
  return routes
})
