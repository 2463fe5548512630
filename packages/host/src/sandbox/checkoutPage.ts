/**
 * The sandbox acquirer's checkout page: plain server-rendered HTML, no scripts, no external
 * resources (works offline and in any browser). The payer sees the amount and description and
 * pays or declines with a form POST; the page then shows the acquirer's status.
 */
import type { Payments } from "@frank/core"
import type { SandboxPayment } from "@frank/adapters"

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c)

const STATUS_TEXT: Record<Payments.PaymentStatus, string> = {
  pending: "Ожидает оплаты",
  authorized: "Средства заблокированы",
  confirmed: "Оплачено",
  canceled: "Отменено",
  rejected: "Отклонено",
  failed: "Ошибка оплаты"
}

/** Where a finished checkout leads back: a real acquirer uses the merchant's return URL; the sandbox the host's cabinet. */
const RETURN_PATH = "/cabinet/topups"

const rubles = (n: number) => `${new Intl.NumberFormat("ru-RU").format(n)} ₽`

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:2rem;color:#1d1d1f}
main{max-width:28rem;margin:0 auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 2px 12px rgba(0,0,0,.08)}
.sandbox{background:#fff4ce;border-radius:6px;padding:.5rem .75rem;font-size:.875rem}
.amount{font-size:2rem;font-weight:600;margin:1rem 0 .25rem}
.status{font-weight:600}
.notice{background:#e8f1ff;border-radius:6px;padding:.5rem .75rem}
form{display:inline-block;margin:1rem .5rem 0 0}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #888;background:#fff;cursor:pointer}
button.pay{background:#1a7f37;border-color:#1a7f37;color:#fff}
dl{font-size:.875rem;color:#555}dt{float:left;clear:left;width:8rem}dd{margin-left:8rem}`

const layout = (title: string, body: string) =>
  `<!doctype html>
<html lang="ru">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
<p class="sandbox">Тестовая среда (sandbox): деньги не списываются.</p>
${body}
</main></body>
</html>
`

/** The page of one payment; `notice` is a one-line message after an action (already user-facing text). */
export const checkoutPage = (
  p: SandboxPayment,
  actionPath: (action: "pay" | "decline") => string,
  notice?: string
): string => {
  const open = p.status === "pending" || p.status === "authorized"
  return layout(
    `Оплата ${rubles(p.amountRub)}`,
    `<h1>Оплата заказа</h1>
<p class="amount" data-testid="amount">${rubles(p.amountRub)}</p>
${p.description === null ? "" : `<p data-testid="description">${escapeHtml(p.description)}</p>`}
<p>Статус: <span class="status" data-testid="status" data-status="${p.status}">${STATUS_TEXT[p.status]}</span></p>
${notice === undefined ? "" : `<p class="notice" role="status">${escapeHtml(notice)}</p>`}
${
  open
    ? `<form method="post" action="${escapeHtml(actionPath("pay"))}"><button class="pay" type="submit" name="action" value="pay">Оплатить ${rubles(p.amountRub)}</button></form>
<form method="post" action="${escapeHtml(actionPath("decline"))}"><button type="submit" name="action" value="decline">Отказаться</button></form>`
    : ""
}
${open ? "" : `<p><a href="${RETURN_PATH}" data-testid="return">Вернуться в кабинет</a></p>`}
<dl><dt>Заказ</dt><dd>${escapeHtml(p.orderId)}</dd><dt>Платёж</dt><dd>${escapeHtml(p.id)}</dd></dl>`
  )
}

export const checkoutNotFoundPage = (): string =>
  layout("Платёж не найден", "<h1>Платёж не найден</h1><p>Проверьте ссылку на оплату.</p>")
