/**
 * Invoices: the company profile, creating an invoice at the profile's revision, its PDF, the SBP
 * link with its QR code, refreshing the status from the bank, and the history.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Ids, Invoices } from "@frank/core"
import { idOr } from "@frank/core/http"
import { Effect } from "effect"
import { importOptional } from "../../node/internal/optionalPackage.js"
import type { CabinetContext } from "../CabinetRequest.js"
import { type FormBody, formBody, redirect } from "../CabinetRequest.js"
import { INVOICE_TONES, statusBadge } from "../badges.js"
import { emptyState, formatDate, formatNumber, type Html, html, htmlResponse, type Notice, page } from "../html.js"
import { type CabinetRoute, doneNotice, errorText, get, post } from "../routes.js"
import {
  changedFields,
  messagesByField,
  PROFILE_FIELDS,
  type ProfileField,
  profileForm,
  type ProfileValues,
  valuesOf
} from "./invoiceProfileForm.js"

interface ProfileState {
  readonly values?: ProfileValues
  readonly revision?: number
  readonly errors?: Partial<Record<ProfileField, ReadonlyArray<string>>>
}

const historyRow = (ctx: CabinetContext, i: Invoices.Invoice) => {
  const t = ctx.t.invoices
  const open = i.status !== "paid" && i.status !== "canceled" && i.status !== "expired"
  const act = (path: string, label: string) =>
    html`<form method="post" action="${ctx.base}/invoices/${i.id}/${path}"><button type="submit">${label}</button></form>`
  return html`<tr data-testid="invoice-row" data-status="${i.status}"><td>${i.number}</td><td class="num">${ctx.t.rubles(formatNumber(ctx.t, i.amountRub))}</td>
<td data-testid="invoice-status">${statusBadge(ctx.t.labels.invoiceStatus, INVOICE_TONES, i.status)}</td><td class="nowrap">${formatDate(ctx.t, i.createdAt)}</td><td class="nowrap">${i.creditedAt === null ? "" : formatDate(ctx.t, i.creditedAt)}</td>
<td class="actions"><a href="${ctx.base}/invoices/${i.id}/pdf" data-testid="invoice-pdf">${t.pdf}</a>${open ? act("sbp", t.sbp) : ""}${act("refresh", t.refresh)}</td></tr>`
}

const amountProblem = (ctx: CabinetContext, amount: string) =>
  !/^\d{1,6}$/.test(amount) || Number(amount) < 1 || Number(amount) > 100_000 ? ctx.t.invoices.amountInvalid : undefined

export const invoicesRoutes = Effect.gen(function* () {
  const invoices = yield* Invoices.Invoices
  // A malformed id names no invoice: the same page as a missing one.
  const invoiceId = Effect.flatMap(HttpRouter.params, (p) =>
    idOr(Ids.InvoiceId, p.id ?? "", () => new Invoices.InvoiceNotFound({ message: "no such invoice" }))
  )

  const show = (ctx: CabinetContext, status = 200, notice?: Notice, state: ProfileState = {}, extra?: Html) =>
    Effect.gen(function* () {
      const t = ctx.t.invoices
      const profile = yield* Effect.orDie(invoices.getProfile(ctx.partnerId))
      const history = yield* Effect.orDie(invoices.history(ctx.partnerId, 1, 50))
      const revision = state.revision ?? profile?.revision ?? 0
      const profileSection = html`<section aria-labelledby="profile-title"><h2 id="profile-title">${t.profile}</h2><p>${t.revision(profile?.revision ?? 0)}</p>
${profileForm(ctx, state.values ?? valuesOf(profile), revision, state.errors)}</section>`
      const createSection =
        profile === undefined
          ? html`<section aria-labelledby="create-title"><h2 id="create-title">${t.create}</h2><p>${t.needProfile}</p></section>`
          : html`<section aria-labelledby="create-title"><h2 id="create-title">${t.create}</h2><form method="post" action="${ctx.base}/invoices" class="stack">
<input type="hidden" name="expectedProfileRevision" value="${profile.revision}">
<label>${t.amount} <input name="amountRub" type="number" min="1" max="100000" required inputmode="numeric"></label>
<label>${t.comment} <input name="comment" maxlength="140"></label><button type="submit">${t.issue}</button></form></section>`
      const table = html`<section aria-labelledby="history-title"><h2 id="history-title">${t.history}</h2><div class="scroll"><table>
<thead><tr><th scope="col">${t.number}</th><th scope="col" class="num">₽</th><th scope="col">${t.status}</th><th scope="col">${ctx.t.topups.created}</th><th scope="col">${t.credited}</th><th scope="col"><span class="sr-only">${t.pdf}</span></th></tr></thead>
<tbody>${history.items.map((i) => historyRow(ctx, i))}</tbody></table></div>${history.items.length === 0 && emptyState(ctx.t.emptyStates.invoices, { href: profile === undefined ? "#profile-title" : "#create-title", label: ctx.t.emptyStates.invoicesNext })}</section>`
      return htmlResponse(
        page(ctx, "invoices", t.title, html`${extra}${profileSection}${createSection}${table}`, notice),
        status
      )
    })

  const saveProfile = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const form: FormBody = yield* formBody
      const entered = Object.fromEntries(PROFILE_FIELDS.map((f) => [f, form.get(f) ?? ""])) as ProfileValues
      const input = Object.fromEntries(
        PROFILE_FIELDS.map((f) => [f, (entered[f] ?? "").trim() === "" ? null : entered[f]])
      )
      const revision = Number(form.get("expectedProfileRevision") ?? "")
      const saved = yield* invoices
        .saveProfile(ctx.partnerId, { ...input, expectedProfileRevision: Number.isInteger(revision) ? revision : null })
        .pipe(Effect.catchTag("StoreError", Effect.die), Effect.either)
      if (saved._tag === "Right") return redirect(`${ctx.base}/invoices?done=saved`)
      const e = saved.left
      if (e._tag === "ProfileRevisionConflict") {
        const current = valuesOf(yield* Effect.orDie(invoices.getProfile(ctx.partnerId)))
        const changed = changedFields(current, entered).map(
          (f) => `${ctx.t.invoices.fields[f] ?? f}: «${current[f] ?? ""}»`
        )
        const text = [`${errorText(ctx.t, e)[0]} ${ctx.t.invoices.conflict}`, ...changed, ctx.t.invoices.retry]
        return yield* show(ctx, 409, { kind: "error", text }, { values: entered, revision: e.currentRevision })
      }
      const { byField, general } = messagesByField(ctx.t, e.issues, e.messages)
      const text = general.length > 0 ? general : [ctx.t.errors.codes.VALIDATION_FAILED ?? e.message]
      return yield* show(ctx, 400, { kind: "error", text }, { values: entered, revision, errors: byField })
    })

  const create = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const form = yield* formBody
      const amount = (form.get("amountRub") ?? "").trim()
      const problem = amountProblem(ctx, amount)
      if (problem !== undefined) return yield* show(ctx, 400, { kind: "error", text: problem })
      const comment = (form.get("comment") ?? "").trim()
      const created = yield* invoices
        .create(ctx.partnerId, {
          amountRub: Number(amount),
          expectedProfileRevision: Number(form.get("expectedProfileRevision") ?? "0"),
          comment: comment.length === 0 ? undefined : comment
        })
        .pipe(Effect.catchTags({ StoreError: Effect.die, BankUnavailable: Effect.die }), Effect.either)
      if (created._tag === "Right") return redirect(`${ctx.base}/invoices?done=created`)
      return yield* show(ctx, created.left.status === 409 ? 409 : 400, {
        kind: "error",
        text: errorText(ctx.t, created.left)
      })
    })

  const notFound = (ctx: CabinetContext) => show(ctx, 404, { kind: "error", text: ctx.t.errors.notFound })

  const pdf = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const doc = yield* Effect.flatMap(invoiceId, (id) => invoices.pdf(ctx.partnerId, id)).pipe(
        Effect.catchTags({ StoreError: Effect.die, BankUnavailable: Effect.die }),
        Effect.either
      )
      if (doc._tag === "Left") return yield* notFound(ctx)
      return doc.right._tag === "Redirect"
        ? redirect(doc.right.url)
        : HttpServerResponse.uint8Array(doc.right.bytes, {
            contentType: "application/pdf",
            headers: {
              "content-disposition": `inline; filename="${doc.right.filename.replace(/[^\w.-]/g, "_")}"`,
              "cache-control": "no-store"
            }
          })
    })

  const sbp = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const link = yield* Effect.flatMap(invoiceId, (id) => invoices.sbpLink(ctx.partnerId, id)).pipe(
        Effect.catchTags({ StoreError: Effect.die, BankUnavailable: Effect.die }),
        Effect.either
      )
      if (link._tag === "Left")
        return yield* show(ctx, link.left.status, { kind: "error", text: errorText(ctx.t, link.left) })
      const t = ctx.t.invoices
      const svg = yield* Effect.promise(async () => {
        // Loaded on the first invoice shown: qrcode is an optional peer of @frank/adapters.
        const { default: QRCode } = await importOptional(
          "qrcode",
          "The cabinet's invoice QR codes",
          () => import("qrcode")
        )
        return QRCode.toString(link.right.url, { type: "svg", margin: 1 })
      })
      const img = `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`
      const box = html`<section aria-labelledby="sbp-title" class="qr"><h2 id="sbp-title">${t.sbpTitle}</h2><p>${t.sbpNote}</p>
<img src="${img}" alt="${t.sbpTitle}: QR" data-testid="sbp-qr" width="192" height="192"><p><a href="${link.right.url}" data-testid="sbp-link">${link.right.url}</a></p></section>`
      return yield* show(ctx, 200, undefined, {}, box)
    })

  const refresh = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const done = yield* Effect.flatMap(invoiceId, (id) => invoices.refresh(ctx.partnerId, id)).pipe(
        Effect.catchTags({ StoreError: Effect.die, BankUnavailable: Effect.die }),
        Effect.either
      )
      return done._tag === "Left" ? yield* notFound(ctx) : redirect(`${ctx.base}/invoices?done=refreshed`)
    })

  const routes: ReadonlyArray<CabinetRoute> = [
    get("/invoices", (ctx) => {
      const t = ctx.t.invoices
      return show(ctx, 200, doneNotice(ctx, { saved: t.saved, created: t.created, refreshed: t.refreshed }))
    }),
    post("/invoices/profile", saveProfile),
    post("/invoices", create),
    get("/invoices/:id/pdf", pdf),
    post("/invoices/:id/sbp", sbp),
    post("/invoices/:id/refresh", refresh)
  ]
  return routes
})
