/**
 * The crash campaign's workload: a partner's mixed HTTP traffic (top-ups confirmed through the
 * sandbox acquirer, task launches and provider reports, legal invoices paid through the sandbox
 * bank, webhook test events), recording every operation the host acknowledged with a 2xx.
 */
import { call } from "../spawnHost.js"

export interface Host {
  readonly baseUrl: string
  readonly adminToken: string
}

export interface Acknowledged {
  readonly payments: Set<string>
  readonly confirmedPayments: Set<string>
  readonly tasks: Set<string>
  readonly settledTasks: Map<string, "succeed" | "fail">
  readonly invoices: Set<string>
  readonly paidInvoices: Set<string>
  readonly endpoints: Set<string>
}

export const newAcknowledged = (): Acknowledged => ({
  payments: new Set(),
  confirmedPayments: new Set(),
  tasks: new Set(),
  settledTasks: new Map(),
  invoices: new Set(),
  paidInvoices: new Set(),
  endpoints: new Set()
})

export interface CampaignPartner {
  readonly id: string
  readonly key: Record<string, string>
  readonly ack: Acknowledged
}

const admin = (host: Host) => ({ authorization: `Bearer ${host.adminToken}` })
const ok = (status: number) => status >= 200 && status < 300
const pick = <A>(items: ReadonlyArray<A>): A | undefined => items[Math.floor(Math.random() * items.length)]

/** One random operation; network errors (the host died under it) are simply not acknowledged. */
export const oneOperation = async (host: Host, p: CampaignPartner, n: number): Promise<void> => {
  const x = Math.random()
  if (x < 0.2) {
    const r = await call(host, "POST", "/v1/billing/payment/link", {
      headers: { ...p.key, "idempotency-key": `crash-${n % 7}-${p.id}` },
      body: { amountRub: 100 + (n % 7) }
    })
    if (ok(r.status)) p.ack.payments.add(r.json.paymentId)
  } else if (x < 0.35) {
    const id = pick([...p.ack.payments])
    if (id === undefined) return
    const r = await call(host, "POST", `/admin/v1/sandbox/payments/${id}/confirm`, { headers: admin(host) })
    if (ok(r.status)) p.ack.confirmedPayments.add(id)
  } else if (x < 0.55) {
    const r = await call(host, "POST", "/v1/tasks", {
      headers: p.key,
      body: { modelId: "gpt-5-mini", prompt: `crash campaign ${n}` }
    })
    if (ok(r.status)) p.ack.tasks.add(r.json.data.task_id)
  } else if (x < 0.7) {
    const id = pick([...p.ack.tasks])
    if (id === undefined) return
    const action = p.ack.settledTasks.get(id) ?? (Math.random() < 0.7 ? "succeed" : "fail")
    const r = await call(host, "POST", `/admin/v1/sandbox/tasks/${id}/${action}`, { headers: admin(host), body: {} })
    if (ok(r.status)) p.ack.settledTasks.set(id, action)
  } else if (x < 0.8) {
    const r = await call(host, "POST", "/v1/billing/legal-invoices/create", {
      headers: p.key,
      body: { amountRub: 1000 + n, expectedProfileRevision: 1 }
    })
    if (ok(r.status)) p.ack.invoices.add(r.json.id)
  } else if (x < 0.9) {
    const id = pick([...p.ack.invoices])
    if (id === undefined) return
    const r = await call(host, "POST", `/admin/v1/sandbox/invoices/${id}/pay`, { headers: admin(host), body: {} })
    if (ok(r.status)) p.ack.paidInvoices.add(id)
  } else {
    const id = pick([...p.ack.endpoints])
    if (id === undefined) return
    await call(host, "POST", `/v1/webhooks/endpoints/${id}/test`, { headers: p.key })
  }
}
