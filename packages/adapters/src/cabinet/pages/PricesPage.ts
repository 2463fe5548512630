/**
 * Prices: the catalog at the partner's tariff and an estimate calculator whose form is built from
 * the chosen model's operation (its modes, resolutions, qualities, duration range, prompt and
 * input counts), answered with the quote's breakdown. A GET form: an estimate changes nothing.
 */
import { Pricing, Tariffs } from "@frank/core"
import { Effect, Either, ParseResult, Schema } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { formatNumber, type Html, html, htmlResponse, join, type Notice, page } from "../html.js"
import { type CabinetRoute, get } from "../routes.js"

const itemsOf = (view: Pricing.CatalogView): ReadonlyArray<Pricing.CatalogItem> => Object.values(view.families).flat()

const catalogTable = (ctx: CabinetContext, items: ReadonlyArray<Pricing.CatalogItem>) => {
  const t = ctx.t.prices
  const price = (n: number) => ctx.t.franks(formatNumber(ctx.t, n, 6))
  const rows = items.flatMap((m) =>
    m.operations.map(
      (o) =>
        html`<tr><td>${m.title}<br><small><code>${m.modelId}</code></small></td><td>${ctx.t.labels.operations[o.operation] ?? html`<code>${o.operation}</code>`}</td><td>${ctx.t.labels.billingUnits[o.billingUnit] ?? o.billingUnit}</td><td class="num">${price(o.pricePerUnit)}</td><td class="num">${price(o.pricePerUnitAtTariff)}</td></tr>`
    )
  )
  return html`<section aria-labelledby="catalog-title"><h2 id="catalog-title">${t.catalog}</h2><div class="scroll"><table>
<thead><tr><th scope="col">${t.model}</th><th scope="col">${t.operation}</th><th scope="col">${t.unit}</th><th scope="col" class="num">${t.listPrice}</th><th scope="col" class="num">${t.yourPrice}</th></tr></thead><tbody>${rows}</tbody></table></div></section>`
}

const select = (
  name: string,
  label: string,
  choices: ReadonlyArray<{ name: string; isDefault: boolean }>,
  q: URLSearchParams
) =>
  html`<label>${label} <select name="${name}">${choices.map(
    (c) =>
      html`<option value="${c.name}"${(q.get(name) ?? (c.isDefault ? c.name : "")) === c.name ? " selected" : ""}>${c.name}</option>`
  )}</select></label>`

const count = (name: string, label: string, max: number, q: URLSearchParams) =>
  html`<label>${label} <input type="number" name="${name}" min="0" max="${max}" value="${q.get(name) ?? ""}"></label>`

/** The inputs the chosen operation takes, and only those. */
const operationFields = (ctx: CabinetContext, o: Pricing.CatalogOperationView) => {
  const t = ctx.t.prices
  const q = ctx.query
  const fields: Html[] = []
  if (o.modes.length > 1) fields.push(select("mode", t.mode, o.modes, q))
  if (o.resolutions !== null) fields.push(select("resolution", t.resolution, o.resolutions, q))
  if (o.qualities !== null) fields.push(select("quality", t.quality, o.qualities, q))
  if (o.duration !== null)
    fields.push(
      html`<label>${t.duration(o.duration.minSeconds, o.duration.maxSeconds)} <input type="number" name="duration" min="${o.duration.minSeconds}" max="${o.duration.maxSeconds}" value="${q.get("duration") ?? o.duration.defaultSeconds ?? ""}"${o.duration.required ? " required" : ""}></label>`
    )
  if (o.promptRequired || o.minimumTokens !== null || o.surcharges.voice !== undefined)
    fields.push(
      html`<label>${t.prompt} <textarea name="prompt" rows="3" maxlength="3000">${q.get("prompt") ?? ""}</textarea></label>`
    )
  if (o.maxInputImages !== null && o.maxInputImages > 0)
    fields.push(count("imageCount", t.imageCount, o.maxInputImages, q))
  if (o.surcharges.referenceImage !== undefined) fields.push(count("referenceImageCount", t.referenceImageCount, 30, q))
  if (o.surcharges.referenceVideo !== undefined) fields.push(count("referenceVideoCount", t.referenceVideoCount, 10, q))
  if (o.surcharges.referenceAudio !== undefined) fields.push(count("referenceAudioCount", t.referenceAudioCount, 10, q))
  if (o.imageOutputCountMultiplies) fields.push(count("imageOutputCount", t.imageOutputCount, 9, q))
  return join(fields, "\n")
}

const calculator = (ctx: CabinetContext, items: ReadonlyArray<Pricing.CatalogItem>) => {
  const t = ctx.t.prices
  const model = items.find((m) => m.modelId === ctx.query.get("modelId"))
  const operation =
    model?.operations.find((o) => o.operation === ctx.query.get("operation")) ??
    model?.operations.find((o) => o.isDefault) ??
    model?.operations[0]
  const models = items.map(
    (m) => html`<option value="${m.modelId}"${m === model ? " selected" : ""}>${m.title}</option>`
  )
  const operations =
    model === undefined || model.operations.length < 2
      ? ""
      : select(
          "operation",
          t.operation,
          model.operations.map((o) => ({ name: o.operation, isDefault: o === operation })),
          ctx.query
        )
  return html`<section aria-labelledby="estimate-title"><h2 id="estimate-title">${t.estimate}</h2><p>${t.noCharge}</p>
<form method="get" action="${ctx.base}/prices" class="stack">
<label>${t.model} <select name="modelId"><option value="">${t.chooseModel}</option>${models}</select></label>
${operations}${operation === undefined ? "" : operationFields(ctx, operation)}
<input type="hidden" name="estimate" value="1">
<button type="submit">${t.calculate}</button></form></section>`
}

const breakdown = (ctx: CabinetContext, quote: Pricing.Quote) => {
  const t = ctx.t.prices
  const money = (n: number) => ctx.t.franks(formatNumber(ctx.t, n))
  const rows = quote.breakdown.map(
    (s) =>
      html`<tr><td>${s.description}</td><td class="num">${s.multiplier === undefined ? "" : `×${s.multiplier}`}${s.amountFranks === undefined ? "" : money(s.amountFranks)}</td><td class="num">${money(s.subtotalFranks)}</td></tr>`
  )
  return html`<section aria-labelledby="breakdown-title"><h2 id="breakdown-title">${t.breakdown}</h2><div class="scroll"><table>
<thead><tr><th scope="col">${t.step}</th><th scope="col" class="num"><span class="sr-only">${t.step}</span></th><th scope="col" class="num">${t.subtotal}</th></tr></thead><tbody>${rows}</tbody></table></div>
<p><strong>${t.total}: <span data-testid="estimate-total">${money(quote.totalFranks)}</span></strong></p></section>`
}

/** The form's label of an estimate field, for the field the engine names in its problem. */
const fieldLabel = (ctx: CabinetContext, field: string): string => {
  const t = ctx.t.prices
  const labels: Record<string, string> = {
    modelId: t.model,
    operation: t.operation,
    mode: t.mode,
    resolution: t.resolution,
    quality: t.quality,
    duration: t.durationField,
    prompt: t.prompt,
    imageCount: t.imageCount,
    referenceImageCount: t.referenceImageCount,
    referenceVideoCount: t.referenceVideoCount,
    referenceAudioCount: t.referenceAudioCount,
    imageOutputCount: t.imageOutputCount
  }
  return labels[field] ?? field
}

/** A rejected estimate in the page's words: the code's sentence, then each field's problem. */
const estimateProblems = (ctx: CabinetContext, code: string, messages: ReadonlyArray<string>) => [
  ctx.t.errors.codes[code] ?? code,
  ...messages.map((m) => {
    const [field = "", ...rest] = m.split(": ")
    return ctx.t.prices.fieldProblem(fieldLabel(ctx, field.split(".")[0] ?? field), rest.join(": ") || m)
  })
]

/** The query as an estimate request: empty fields dropped, numbers coerced by the schema. */
const requestOf = (q: URLSearchParams) => {
  const raw: Record<string, string> = {}
  for (const [k, v] of q) if (v !== "" && k !== "estimate" && k !== "lang") raw[k] = v
  return Schema.decodeUnknownEither(Pricing.EstimateRequest)(raw)
}

export const pricesRoutes = Effect.gen(function* () {
  const pricing = yield* Pricing.Pricing
  const tariffs = yield* Tariffs.Tariffs

  const show = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const discount = yield* Effect.orDie(tariffs.discountPercent(ctx.partnerId))
      const items = itemsOf(pricing.view(discount))
      let notice: Notice | undefined
      let result: Html | undefined
      if (ctx.query.get("estimate") === "1") {
        const quote = Either.flatMap(
          Either.mapLeft(requestOf(ctx.query), (e) => ({
            code: "ESTIMATE_INVALID",
            messages: ParseResult.ArrayFormatter.formatErrorSync(e).map((i) => `${i.path.join(".")}: ${i.message}`)
          })),
          (req) => pricing.estimate(req, discount)
        )
        if (Either.isRight(quote)) result = breakdown(ctx, quote.right)
        else notice = { kind: "error", text: estimateProblems(ctx, quote.left.code, quote.left.messages) }
      }
      const body = html`${calculator(ctx, items)}${result}${catalogTable(ctx, items)}`
      return htmlResponse(page(ctx, "prices", ctx.t.prices.title, body, notice), notice === undefined ? 200 : 400)
    })

  const routes: ReadonlyArray<CabinetRoute> = [get("/prices", show)]
  return routes
})
