/**
 * The event catalog: every event type with its description, the JSON Schema of its data and an
 * example, and "send this example" to one of the partner's active endpoints (a webhook.test that
 * carries the example, `Webhooks.sendExample`).
 */
import { Events, Ids, Webhooks } from "@frank/core"
import { idOr } from "@frank/core/http"
import { Effect } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { formBody, redirect } from "../CabinetRequest.js"
import { html, htmlResponse, type Notice, page } from "../html.js"
import { type CabinetRoute, doneNotice, errorText, get, orDieOnStore, post } from "../routes.js"

const entryHtml = (
  ctx: CabinetContext,
  e: (typeof Events.eventCatalog)[number],
  active: ReadonlyArray<Webhooks.WebhookEndpoint>
) => {
  const t = ctx.t.portal
  const id = `type-${e.type.replace(/\./g, "-")}`
  const send =
    active.length === 0
      ? html`<p><small>${t.noActiveEndpoint}</small></p>`
      : html`<form method="post" action="${ctx.base}/webhooks/events" class="inline"><input type="hidden" name="eventType" value="${e.type}">
<label>${t.sendTo} <select name="endpointId" class="fit">${active.map((a) => html`<option value="${a.id}">${a.url}</option>`)}</select></label> <button type="submit">${t.sendExample}</button></form>`
  return html`<section aria-labelledby="${id}" data-testid="event-type" data-type="${e.type}"><h2 id="${id}"><code>${e.type}</code></h2>
<p>${ctx.t.labels.eventTypes[e.type] ?? e.description}</p>
<details><summary>${t.schema}</summary><div class="scroll"><pre>${JSON.stringify(e.schema, null, 2)}</pre></div></details>
<h3>${t.example}</h3><div class="scroll"><pre data-testid="example">${JSON.stringify(e.example, null, 2)}</pre></div>
${send}</section>`
}

export const webhookCatalogRoutes = Effect.gen(function* () {
  const webhooks = yield* Webhooks.Webhooks
  const show = (ctx: CabinetContext, status: number, notice?: Notice) =>
    Effect.gen(function* () {
      const t = ctx.t.portal
      const active = (yield* Effect.orDie(webhooks.listEndpoints(ctx.partnerId))).filter((e) => e.active)
      const body = html`<p><a href="${ctx.base}/webhooks">${t.backToWebhooks}</a></p><p>${t.catalogIntro}</p>
${Events.eventCatalog.map((e) => entryHtml(ctx, e, active))}`
      return htmlResponse(page(ctx, "webhooks", t.catalogTitle, body, notice), status)
    })
  const routes: ReadonlyArray<CabinetRoute> = [
    get("/webhooks/events", (ctx) => show(ctx, 200, doneNotice(ctx, { sent: ctx.t.portal.exampleSent }))),
    post("/webhooks/events", (ctx) =>
      Effect.gen(function* () {
        const form = yield* formBody
        const raw = form.get("endpointId") ?? ""
        const sent = yield* orDieOnStore(
          Effect.flatMap(
            idOr(Ids.EndpointId, raw, () => new Webhooks.EndpointNotFound({ message: "no such endpoint" })),
            (id) => webhooks.sendExample(ctx.partnerId, id, form.get("eventType") ?? "")
          )
        ).pipe(Effect.either)
        if (sent._tag === "Right") return redirect(`${ctx.base}/webhooks/events?done=sent`)
        const e = sent.left as { code?: string; message: string; status?: number }
        return yield* show(ctx, e.status === 404 ? 404 : e.status === 409 ? 409 : 400, {
          kind: "error",
          text: errorText(ctx.t, e)
        })
      })
    )
  ]
  return routes
})
