/**
 * Top-ups: an amount becomes a payment link (the same Payments service as the partner API) and
 * the browser goes to the acquirer's checkout; the history lists the last 50 payments. Each form
 * carries its own Idempotency-Key, so a double submit opens the same payment.
 */
import { randomUUID } from "node:crypto"
import { Payments } from "@frank/core"
import { Effect } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { formBody, redirect } from "../CabinetRequest.js"
import { PAYMENT_TONES, statusBadge } from "../badges.js"
import { emptyState, formatDate, formatNumber, html, htmlResponse, type Notice, page } from "../html.js"
import { type CabinetRoute, errorText, get, post } from "../routes.js"

const form = (ctx: CabinetContext) => {
  const t = ctx.t.topups
  return html`<section aria-labelledby="topup-title"><h2 id="topup-title">${ctx.t.nav.topups}</h2><p>${t.note}</p>
<form method="post" action="${ctx.base}/topups" class="stack">
<input type="hidden" name="idempotencyKey" value="${randomUUID()}">
<label>${t.amount} <input name="amountRub" type="number" min="1" max="100000" step="1" required inputmode="numeric"></label>
<label>${t.description} <input name="description" maxlength="140"></label>
<button type="submit">${t.pay}</button></form></section>`
}

const row = (ctx: CabinetContext, p: Payments.Payment) =>
  html`<tr data-testid="payment-row" data-status="${p.status}"><td class="nowrap">${formatDate(ctx.t, p.createdAt)}</td><td class="num">${ctx.t.rubles(formatNumber(ctx.t, p.amountRub))}</td>
<td>${p.description ?? ""}</td><td data-testid="payment-status">${statusBadge(ctx.t.labels.paymentStatus, PAYMENT_TONES, p.status)}</td><td>${p.status === "pending" && p.paymentUrl !== null ? html`<a href="${p.paymentUrl}">${ctx.t.topups.open}</a>` : ""}</td></tr>`

export const topUpsRoutes = Effect.gen(function* () {
  const payments = yield* Payments.Payments

  const show = (ctx: CabinetContext, status = 200, notice?: Notice) =>
    Effect.map(Effect.orDie(payments.history(ctx.partnerId)), (history) => {
      const t = ctx.t.topups
      const table = html`<section aria-labelledby="history-title"><h2 id="history-title">${t.history}</h2><div class="scroll"><table>
<thead><tr><th scope="col">${t.created}</th><th scope="col" class="num">₽</th><th scope="col">${ctx.t.transactions.description}</th><th scope="col">${t.status}</th><th scope="col"><span class="sr-only">${t.open}</span></th></tr></thead>
<tbody>${history.map((p) => row(ctx, p))}</tbody></table></div>${history.length === 0 && emptyState(ctx.t.emptyStates.topups, { href: "#topup-title", label: ctx.t.emptyStates.topupsNext })}</section>`
      return htmlResponse(page(ctx, "topups", t.title, html`${form(ctx)}${table}`, notice), status)
    })

  const create = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const body = yield* formBody
      const t = ctx.t.topups
      const amount = (body.get("amountRub") ?? "").trim()
      const description = (body.get("description") ?? "").trim()
      const problems: string[] = []
      if (!/^\d{1,6}$/.test(amount) || Number(amount) < 1 || Number(amount) > 100_000) problems.push(t.amountInvalid)
      if (description.length > 140) problems.push(t.descriptionTooLong)
      if (problems.length > 0) return yield* show(ctx, 400, { kind: "error", text: problems })
      const created = yield* payments
        .createLink(ctx.partnerId, {
          amountRub: Number(amount),
          description: description.length === 0 ? undefined : description,
          idempotencyKey: (body.get("idempotencyKey") ?? "").slice(0, 128) || randomUUID()
        })
        .pipe(Effect.catchTags({ StoreError: Effect.die, PaymentProviderError: Effect.die }), Effect.either)
      if (created._tag === "Left") return yield* show(ctx, 400, { kind: "error", text: errorText(ctx.t, created.left) })
      const url = created.right.payment.paymentUrl
      return url === null ? yield* show(ctx) : redirect(url)
    })

  const routes: ReadonlyArray<CabinetRoute> = [get("/topups", (ctx) => show(ctx)), post("/topups", create)]
  return routes
})
