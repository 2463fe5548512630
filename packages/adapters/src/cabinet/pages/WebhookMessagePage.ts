/**
 * One delivery ("message"): its event's payload pretty-printed, and every attempt with its time,
 * duration, response code, the first KiB of the receiver's body and the error; replay. The body
 * and payload are partner- or receiver-controlled text: they go through the escaping template as
 * any other value.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Ids, Webhooks } from "@frank/core"
import { idOr } from "@frank/core/http"
import { Effect } from "effect"
import { DELIVERY_TONES, statusBadge } from "../badges.js"
import type { CabinetContext } from "../CabinetRequest.js"
import { formatDate, formatNumber, html, htmlResponse, page } from "../html.js"
import { type CabinetRoute, doneNotice, errorText, get, orDieOnStore } from "../routes.js"
import type { AttemptRecord } from "@frank/core/stores"

/** The stored envelope indented for reading; shown as stored should it not parse. */
export const prettyJson = (payload: string): string => {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2)
  } catch {
    return payload
  }
}

const attemptItem = (ctx: CabinetContext, a: AttemptRecord, i: number) => {
  const t = ctx.t.portal
  const body = a.responseSnippet ?? ""
  return html`<li data-testid="attempt" data-status="${a.responseStatus ?? ""}"><h3>${t.attempt(i + 1)}</h3><dl>
<dt>${t.startedAt}</dt><dd>${formatDate(ctx.t, a.startedAt)}</dd>
<dt>${t.duration}</dt><dd data-testid="attempt-duration">${t.ms(formatNumber(ctx.t, a.durationMs, 0))}</dd>
<dt>${t.responseCode}</dt><dd data-testid="attempt-code">${a.responseStatus ?? t.noAnswer}</dd>
${a.error !== null && html`<dt>${t.error}</dt><dd data-testid="attempt-error">${a.error}</dd>`}
<dt>${t.responseBody}</dt><dd>${body === "" ? t.emptyBody : html`<div class="scroll"><pre data-testid="attempt-body">${body}</pre></div>`}</dd></dl></li>`
}

const replayable = (d: Webhooks.DeliveryRecord) =>
  d.status === "delivered" || d.status === "uncertain" || d.status === "dead_lettered"

const detail = (ctx: CabinetContext, d: Webhooks.DeliveryDetail) => {
  const t = ctx.t.portal
  const replay =
    replayable(d) &&
    html`<form method="post" action="${ctx.base}/webhooks/deliveries/${d.id}/replay?from=message"><button type="submit">${t.replay}</button></form>`
  return html`<p><a href="${ctx.base}/webhooks">${t.backToWebhooks}</a></p>
<section aria-labelledby="summary-title"><h2 id="summary-title">${t.summary}</h2><dl>
<dt>${t.event}</dt><dd data-testid="message-type"><code>${d.eventType}</code></dd>
<dt>${t.eventId}</dt><dd><code>${d.eventId}</code></dd>
<dt>${t.endpoint}</dt><dd><a href="${ctx.base}/webhooks/endpoints/${d.endpointId}">${d.endpointId}</a></dd>
<dt>${t.status}</dt><dd data-testid="message-status">${statusBadge(ctx.t.labels.deliveryStatus, DELIVERY_TONES, d.status)}</dd>
<dt>${t.created}</dt><dd>${formatDate(ctx.t, d.createdAt)}</dd></dl>${replay}</section>
<section aria-labelledby="payload-title"><h2 id="payload-title">${t.payload}</h2><div class="scroll"><pre data-testid="payload">${prettyJson(d.payload)}</pre></div></section>
<section aria-labelledby="attempts-title"><h2 id="attempts-title">${t.attempts}</h2>
${d.attemptLog.length === 0 ? html`<p>${t.noAttemptsYet}</p>` : html`<ol class="attempts">${d.attemptLog.map((a, i) => attemptItem(ctx, a, i))}</ol>`}</section>`
}

export const webhookMessageRoutes = Effect.gen(function* () {
  const webhooks = yield* Webhooks.Webhooks
  const deliveryId = Effect.flatMap(HttpRouter.params, (p) =>
    idOr(Ids.DeliveryId, p.id ?? "", () => new Webhooks.DeliveryNotFound({ message: "no such delivery" }))
  )
  const routes: ReadonlyArray<CabinetRoute> = [
    get("/webhooks/deliveries/:id", (ctx) =>
      Effect.gen(function* () {
        const t = ctx.t.portal
        const found = yield* orDieOnStore(
          Effect.flatMap(deliveryId, (id) => webhooks.getDelivery(ctx.partnerId, id))
        ).pipe(Effect.either)
        if (found._tag === "Left")
          return htmlResponse(page(ctx, "webhooks", t.messageTitle, html`<p>${errorText(ctx.t, found.left)}</p>`), 404)
        const notice = doneNotice(ctx, ctx.t.webhooks.done)
        return htmlResponse(page(ctx, "webhooks", t.messageTitle, detail(ctx, found.right), notice))
      })
    )
  ]
  return routes
})
