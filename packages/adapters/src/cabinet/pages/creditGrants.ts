/**
 * The overview's credit grants: the next expiries the balance names (what lapses and when, so a
 * partner spends it first) and every grant with what is left of it. Spending order is the
 * engine's (lower priority number, then the soonest expiry); the page only shows it.
 */
import { type Ledger, Money } from "@frank/core"
import type { CabinetContext } from "../CabinetRequest.js"
import { badge } from "../badges.js"
import { formatDate, formatNumber, type Html, html } from "../html.js"

type Expiring = ReadonlyArray<{ readonly amountFranks: number; readonly expiresAt: string; readonly grantId: string }>

const franks = (ctx: CabinetContext, n: number) => ctx.t.franks(formatNumber(ctx.t, n))

const time = (ctx: CabinetContext, ms: number) =>
  html`<time datetime="${new Date(ms).toISOString()}">${formatDate(ctx.t, ms)}</time>`

const grantRow = (ctx: CabinetContext, g: Ledger.CreditGrant) => {
  const t = ctx.t.overview
  const expires = g.expiresAt === null ? t.grantNeverExpires : time(ctx, g.expiresAt)
  const state =
    g.expiredAt !== null
      ? badge("neutral", t.grantExpired)
      : g.remainingMinor === 0
        ? badge("neutral", t.grantSpent)
        : badge("ok", t.grantLive)
  return html`<tr data-testid="grant-row" data-grant="${g.id}"><td class="num nowrap">${franks(ctx, Money.minorToFranks(g.grantedMinor))}</td>
<td class="num nowrap" data-testid="grant-remaining">${franks(ctx, Money.minorToFranks(g.remainingMinor))}</td>
<td class="num nowrap">${franks(ctx, Money.minorToFranks(g.reservedMinor))}</td><td class="num nowrap">${g.priority}</td>
<td data-testid="grant-expires">${expires}</td><td data-testid="grant-state">${state}</td></tr>`
}

const expiringList = (ctx: CabinetContext, expiring: Expiring) =>
  expiring.length === 0
    ? html`<p>${ctx.t.overview.nothingExpires}</p>`
    : html`<ul data-testid="expiring">${expiring.map(
        (e) =>
          html`<li data-testid="expiring-item">${ctx.t.overview.expiresOn(franks(ctx, e.amountFranks))} ${time(ctx, Date.parse(e.expiresAt))}</li>`
      )}</ul>`

/** The grants section; nothing when the partner never received a grant. */
export const creditGrantsSection = (
  ctx: CabinetContext,
  grants: ReadonlyArray<Ledger.CreditGrant>,
  expiring: Expiring
): Html | "" => {
  if (grants.length === 0) return ""
  const t = ctx.t.overview
  return html`<section aria-labelledby="grants-title"><h2 id="grants-title">${t.grants}</h2>
<p>${t.grantsNote}</p><h3>${t.nextExpiries}</h3>${expiringList(ctx, expiring)}
<div class="scroll"><table class="whole-words"><thead><tr><th scope="col" class="num">${t.granted}</th><th scope="col" class="num">${t.remaining}</th><th scope="col" class="num">${t.reserved}</th><th scope="col" class="num">${t.priority}</th><th scope="col">${t.grantExpires}</th><th scope="col">${t.grantState}</th></tr></thead>
<tbody>${grants.map((g) => grantRow(ctx, g))}</tbody></table></div></section>`
}
