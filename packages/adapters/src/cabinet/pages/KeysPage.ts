/**
 * API keys: the list, issuing (the raw key shown once), renaming / narrowing, revoking with a
 * reason, and the quota of 20 active keys. Backed by the same Access service as the partner API.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Access, Ids } from "@frank/core"
import { idOr, PartnerApi, routeTable, scopeReference } from "@frank/core/http"
import { Effect } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { formBody, redirect } from "../CabinetRequest.js"
import { badge } from "../badges.js"
import { emptyState, formatDate, type Html, html, htmlResponse, join, type Notice, page, secretBox } from "../html.js"
import { type CabinetRoute, doneNotice, errorText, get, orDieOnStore, post } from "../routes.js"

const MAX_ACTIVE = 20
const reference = scopeReference(routeTable(PartnerApi))

const status = (ctx: CabinetContext, k: Access.KeyView) =>
  k.revokedAt !== null
    ? badge("bad", ctx.t.keys.revoked)
    : k.active
      ? badge("ok", ctx.t.keys.active)
      : badge("neutral", ctx.t.keys.expired)

const keyRow = (ctx: CabinetContext, k: Access.KeyView) => {
  const t = ctx.t.keys
  const scopes = k.access === "full" ? t.full : (k.scopes ?? []).join(", ")
  const actions =
    k.revokedAt !== null
      ? ""
      : html`<details><summary>${t.change}</summary>
<form method="post" action="${ctx.base}/keys/${k.id}" class="stack">
<label>${t.label} <input name="label" maxlength="120" value="${k.label}"></label>
${
  k.access === "restricted"
    ? html`<fieldset><legend>${t.scopes}</legend>${join(
        (k.scopes ?? []).map(
          (s) => html`<label><input type="checkbox" name="scope" value="${s}" checked> ${s}</label>`
        ),
        " "
      )}</fieldset>`
    : ""
}
<button type="submit">${ctx.t.save}</button></form>
<form method="post" action="${ctx.base}/keys/${k.id}/revoke" class="stack">
<label>${t.reason} <input name="reason" maxlength="200"></label>
<button type="submit" class="danger">${t.revoke}</button></form></details>`
  return html`<tr data-testid="key-row" data-prefix="${k.prefix}"><td><code>${k.prefix}</code></td><td>${k.label ?? ctx.t.none}</td>
<td>${scopes}</td><td class="nowrap">${k.lastUsedAt === null ? t.never : formatDate(ctx.t, k.lastUsedAt)}</td>
<td class="nowrap">${k.expiresAt === null ? t.never : formatDate(ctx.t, k.expiresAt)}</td><td data-testid="key-status">${status(ctx, k)}</td>
<td>${k.revokeReason ?? ""}</td><td>${actions}</td></tr>`
}

const issueForm = (ctx: CabinetContext) => {
  const t = ctx.t.keys
  const scopeBoxes = reference.scopes.map(
    (s) => html`<li><label><input type="checkbox" name="scope" value="${s.scope}"> <strong>${s.scope}</strong></label>
 — ${t.scopeHelp[s.scope] ?? s.description}<details><summary>${t.operations}</summary><ul class="ops">${s.operations.map((o) => html`<li><code>${o.method} ${o.path}</code></li>`)}</ul></details></li>`
  )
  return html`<section aria-labelledby="issue-title"><h2 id="issue-title">${t.issueTitle}</h2>
<form method="post" action="${ctx.base}/keys" class="stack">
<label>${t.label} <input name="label" maxlength="120"></label>
<label>${t.expiresInDays} <input name="expiresInDays" type="number" min="1" max="365" inputmode="numeric"></label>
<fieldset><legend>${t.scopes}</legend><p>${t.scopesHint}</p><ul class="scopes">${scopeBoxes}</ul>
<p>${t.fullOnly}${join(
    reference.fullKeyOnly.map((o) => html`<code>${o.method} ${o.path}</code>`),
    ", "
  )}</p></fieldset>
<button type="submit">${t.issue}</button></form></section>`
}

const render = (ctx: CabinetContext, keys: ReadonlyArray<Access.KeyView>, notice?: Notice, extra?: Html) => {
  const t = ctx.t.keys
  const active = keys.filter((k) => k.active).length
  const table = html`<div class="scroll"><table><caption>${t.quota(active)}</caption>
<thead><tr><th scope="col">${t.prefix}</th><th scope="col">${t.label}</th><th scope="col">${t.scopes}</th><th scope="col">${t.lastUsed}</th><th scope="col">${t.expires}</th><th scope="col">${t.status}</th><th scope="col">${t.revokeReason}</th><th scope="col"><span class="sr-only">…</span></th></tr></thead>
<tbody>${keys.map((k) => keyRow(ctx, k))}</tbody></table></div>${keys.length === 0 && emptyState(ctx.t.emptyStates.keys, { href: "#issue-title", label: ctx.t.emptyStates.keysNext })}`
  return page(ctx, "keys", t.title, html`${extra}${table}${active < MAX_ACTIVE && issueForm(ctx)}`, notice)
}

/** Form → issue command; problems a browser could let through are reported, not guessed. */
const readIssue = (ctx: CabinetContext, form: Effect.Effect.Success<typeof formBody>) => {
  const label = (form.get("label") ?? "").trim()
  const days = (form.get("expiresInDays") ?? "").trim()
  const problems: string[] = []
  if (label.length > 120) problems.push(ctx.t.keys.labelTooLong)
  if (days.length > 0 && !/^\d{1,3}$/.test(days)) problems.push(ctx.t.keys.daysInvalid)
  const scopes = form.getAll("scope").filter((s) => s.length > 0)
  return {
    problems,
    cmd: {
      label: label.length === 0 ? undefined : label,
      expiresInDays: days.length === 0 ? undefined : Number(days),
      scopes: scopes.length === 0 ? undefined : scopes
    }
  }
}

export const keysRoutes = Effect.gen(function* () {
  const access = yield* Access.Access
  const list = (ctx: CabinetContext) => Effect.orDie(access.listKeys(ctx.partnerId, {}))
  const show = (ctx: CabinetContext, status: number, notice?: Notice, extra?: Html) =>
    Effect.map(list(ctx), (keys) => htmlResponse(render(ctx, keys, notice, extra), status))
  const failed = (ctx: CabinetContext) => (e: { code?: string; message: string; status?: number }) =>
    show(ctx, e.status === 404 ? 404 : 400, { kind: "error", text: errorText(ctx.t, e) })
  // A malformed id names no key: the same answer as a missing one.
  const keyId = Effect.flatMap(HttpRouter.params, (p) =>
    idOr(Ids.KeyId, p.id ?? "", () => new Access.ApiKeyNotFound({ message: "no such key" }))
  )

  const routes: ReadonlyArray<CabinetRoute> = [
    get("/keys", (ctx) =>
      show(
        ctx,
        200,
        doneNotice(ctx, {
          changed: ctx.t.keys.changed,
          revoked: ctx.t.keys.revokedDone,
          alreadyRevoked: ctx.t.keys.alreadyRevoked
        })
      )
    ),
    post("/keys", (ctx) =>
      Effect.gen(function* () {
        const { problems, cmd } = readIssue(ctx, yield* formBody)
        if (problems.length > 0) return yield* show(ctx, 400, { kind: "error", text: problems })
        return yield* orDieOnStore(access.issueKey(ctx.partnerId, cmd)).pipe(
          Effect.flatMap((issued) =>
            show(
              ctx,
              201,
              { kind: "ok", text: ctx.t.keys.issued },
              secretBox(ctx.t, "new-key", ctx.t.keys.issuedTitle, issued.raw, ctx.t.keys.issuedNote)
            )
          ),
          Effect.catchAll(failed(ctx))
        )
      })
    ),
    post("/keys/:id", (ctx) =>
      Effect.gen(function* () {
        const form = yield* formBody
        const label = (form.get("label") ?? "").trim()
        if (label.length > 120) return yield* show(ctx, 400, { kind: "error", text: ctx.t.keys.labelTooLong })
        const keys = yield* list(ctx)
        const scopes = form.getAll("scope")
        return yield* orDieOnStore(
          Effect.flatMap(keyId, (id) =>
            access.changeKey(ctx.partnerId, id, {
              label: label.length === 0 ? undefined : label,
              // Full keys show no scope boxes: their form leaves scopes untouched.
              scopes: keys.find((k) => k.id === id)?.access === "restricted" ? scopes : undefined
            })
          )
        ).pipe(Effect.as(redirect(`${ctx.base}/keys?done=changed`)), Effect.catchAll(failed(ctx)))
      })
    ),
    post("/keys/:id/revoke", (ctx) =>
      Effect.gen(function* () {
        const reason = ((yield* formBody).get("reason") ?? "").trim().slice(0, 200)
        const id = yield* keyId
        // Revoking twice changes nothing, so the page says the key already was; a key the list
        // lacks is still tried (legacy keys are not listed) and `false` means no such key.
        if ((yield* list(ctx)).find((k) => k.id === id)?.revokedAt != null)
          return redirect(`${ctx.base}/keys?done=alreadyRevoked`)
        if (!(yield* orDieOnStore(access.revokeKey(ctx.partnerId, id, reason))))
          return yield* new Access.ApiKeyNotFound({ message: "no such key" })
        return redirect(`${ctx.base}/keys?done=revoked`)
      }).pipe(Effect.catchAll(failed(ctx)))
    )
  ]
  return routes
})
