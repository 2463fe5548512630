/**
 * The sandbox SBP B2B payment page: what the payer's bank app would show after scanning the SBP
 * link — payee, amount, purpose — with one button that pays. Plain HTML, no script, no external
 * resource; every interpolated value is escaped.
 */
import type { Payee } from "./Payee.js"
import { formatRubles } from "./rublesInWords.js"

const escapeHtml = (s: string) =>
  s
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;")

export interface SbpPageData {
  readonly number: string
  readonly amountRub: number
  readonly payerName: string
  readonly payee: Payee
  readonly purpose: string
  /** As the bank reports it now. */
  readonly status: "issued" | "paid" | "canceled" | "expired"
  /** Where the form posts to pay. */
  readonly payAction: string
  /** The QR code of the page's own link, as inline SVG. */
  readonly qrSvg: string
  readonly notice?: string | undefined
}

const statusText: Record<SbpPageData["status"], string> = {
  issued: "Ожидает оплаты",
  expired: "Срок оплаты истёк — банк всё ещё примет перевод",
  paid: "Оплачен",
  canceled: "Отменён"
}

export const renderSbpPage = (d: SbpPageData): string => {
  const payable = d.status === "issued" || d.status === "expired"
  return `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>СБП: оплата счёта № ${escapeHtml(d.number)} (песочница)</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 34rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
  .sandbox { background: #fff3cd; border: 1px solid #e0c36c; padding: .5rem .75rem; border-radius: .4rem; font-size: .9rem; }
  .amount { font-size: 2rem; font-weight: 700; margin: .5rem 0; }
  dl { display: grid; grid-template-columns: 9rem 1fr; gap: .3rem .75rem; }
  dt { color: #666; }
  .qr svg { width: 11rem; height: 11rem; }
  button { font-size: 1.1rem; padding: .7rem 1.4rem; border: 0; border-radius: .5rem; background: #1d5fe0; color: white; cursor: pointer; }
  .status { font-weight: 600; }
  .notice { background: #e8f5e9; border: 1px solid #9ccc9f; padding: .5rem .75rem; border-radius: .4rem; }
</style>
</head>
<body>
<p class="sandbox">Песочница Frank: это имитация оплаты через СБП для юрлиц. Настоящие деньги не переводятся.</p>
<h1>Оплата счёта № ${escapeHtml(d.number)}</h1>
${d.notice === undefined ? "" : `<p class="notice">${escapeHtml(d.notice)}</p>`}
<div class="amount">${escapeHtml(formatRubles(d.amountRub * 100))} ₽</div>
<p class="status" id="status">${escapeHtml(statusText[d.status])}</p>
<dl>
  <dt>Получатель</dt><dd>${escapeHtml(d.payee.name)}, ИНН ${escapeHtml(d.payee.inn)}</dd>
  <dt>Банк получателя</dt><dd>${escapeHtml(d.payee.bankName)}, БИК ${escapeHtml(d.payee.bic)}</dd>
  <dt>Плательщик</dt><dd>${escapeHtml(d.payerName)}</dd>
  <dt>Назначение</dt><dd>${escapeHtml(d.purpose)}</dd>
</dl>
<div class="qr">${d.qrSvg}</div>
${
  payable
    ? `<form method="post" action="${escapeHtml(d.payAction)}"><button type="submit">Оплатить через СБП</button></form>`
    : "<p>Этот счёт больше не принимает оплату.</p>"
}
</body>
</html>
`
}
