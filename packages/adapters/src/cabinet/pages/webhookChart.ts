import type { CabinetContext } from "../CabinetRequest.js"
import { formatNumber, html } from "../html.js"
import type { HtmlValue } from "../htmlTemplate.js"
import type { AttemptBucket } from "@frank/core/stores"

const WIDTH = 240
const HEIGHT = 60
const OK = "#15803d"
const FAILED = "#b91c1c"
const LATENCY = "#1d4ed8"

const bars = (buckets: ReadonlyArray<AttemptBucket>, value: (b: AttemptBucket) => number | undefined) => {
  const slot = WIDTH / buckets.length
  return buckets.map((b, i) => {
    const v = value(b)
    if (v === undefined) return ""
    const h = Math.max(1, Math.round(v * HEIGHT))
    return html`<rect x="${(i * slot + 1).toFixed(1)}" y="${HEIGHT - h}" width="${(slot - 2).toFixed(1)}" height="${h}" fill="${LATENCY}"></rect>`
  })
}

const rateBars = (buckets: ReadonlyArray<AttemptBucket>) => {
  const slot = WIDTH / buckets.length
  return buckets.map((b, i) => {
    if (b.attempts === 0) return ""
    const ok = Math.round((b.succeeded / b.attempts) * HEIGHT)
    const x = (i * slot + 1).toFixed(1)
    const w = (slot - 2).toFixed(1)
    return html`<rect x="${x}" y="0" width="${w}" height="${HEIGHT - ok}" fill="${FAILED}"></rect><rect x="${x}" y="${HEIGHT - ok}" width="${w}" height="${ok}" fill="${OK}"></rect>`
  })
}

const svg = (label: string, body: HtmlValue) =>
  html`<svg role="img" aria-label="${label}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" height="72" preserveAspectRatio="none"><title>${label}</title>${body}</svg>`

/** One period: its totals in words, then the success-rate and latency charts. */
export const attemptChart = (ctx: CabinetContext, id: string, title: string, buckets: ReadonlyArray<AttemptBucket>) => {
  const t = ctx.t.portal
  const attempts = buckets.reduce((n, b) => n + b.attempts, 0)
  const succeeded = buckets.reduce((n, b) => n + b.succeeded, 0)
  const duration = buckets.reduce((n, b) => n + b.totalDurationMs, 0)
  const averages = buckets.map((b) => (b.attempts === 0 ? 0 : b.totalDurationMs / b.attempts))
  const slowest = Math.max(1, ...averages)
  const summary =
    attempts === 0
      ? t.noAttempts
      : t.statsLine(
          `${formatNumber(ctx.t, (succeeded / attempts) * 100, 1)} %`,
          t.ms(formatNumber(ctx.t, duration / attempts, 0)),
          formatNumber(ctx.t, attempts, 0)
        )
  return html`<figure data-testid="${id}" data-attempts="${attempts}" data-succeeded="${succeeded}"><figcaption><strong>${title}</strong><br>${summary}</figcaption>
${svg(t.rateChart, rateBars(buckets))}
${svg(
  t.latencyChart,
  bars(buckets, (b) => (b.attempts === 0 ? undefined : b.totalDurationMs / b.attempts / slowest))
)}</figure>`
}
