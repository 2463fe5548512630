/**
 * Status badges: a value's words in a coloured pill, the same five tones on every page, so a
 * status reads by colour and by text (never by colour alone). The raw value stays with the row
 * (data-status) for scripts and tests; the badge shows the words of the page's language.
 */
import { html } from "./htmlTemplate.js"

export type Tone = "ok" | "info" | "warn" | "bad" | "neutral"

export const badge = (tone: Tone, text: string) => html`<span class="badge ${tone}">${text}</span>`

/** The badge of a value: its words from `labels` (the value itself when unknown), its tone from `tones`. */
export const statusBadge = (
  labels: Readonly<Record<string, string>>,
  tones: Readonly<Record<string, Tone>>,
  value: string
) => badge(tones[value] ?? "neutral", labels[value] ?? value)

export const INVOICE_TONES: Readonly<Record<string, Tone>> = {
  issued: "info",
  paid: "ok",
  canceled: "neutral",
  expired: "warn"
}

export const PAYMENT_TONES: Readonly<Record<string, Tone>> = {
  pending: "info",
  authorized: "info",
  confirmed: "ok",
  canceled: "neutral",
  rejected: "bad",
  failed: "bad"
}

export const TASK_TONES: Readonly<Record<string, Tone>> = {
  queued: "neutral",
  running: "info",
  succeeded: "ok",
  failed: "bad"
}

export const DELIVERY_TONES: Readonly<Record<string, Tone>> = {
  pending: "warn",
  delivering: "info",
  delivered: "ok",
  uncertain: "warn",
  dead_lettered: "bad"
}
