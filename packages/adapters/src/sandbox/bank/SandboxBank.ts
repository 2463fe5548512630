/**
 * The sandbox bank: a stand-in for a bank's business invoicing API, with its own book in SQL
 * (`sandbox_bank_invoices`), so invoices survive host restarts and several host instances share
 * them. It implements Frank's BankGateway port exactly as a real bank adapter would — issue, read
 * status, PDF, SBP link — and adds what only a sandbox has: `settle`, the payer paying or the
 * operator canceling at the bank.
 *
 * Status changes reach Frank the way they would from a real bank: the bank only changes its own
 * book; whoever settles then sends Frank a notice (`Invoices.bankNotice`), and Frank asks the
 * bank (`fetchStatus`) what the status is. Without the notice, the partner's refresh finds the
 * same answer. Expiry is computed when the status is read, as a bank reports it: an unpaid invoice
 * past its term reads `expired`, and a late transfer still pays it.
 */
import { randomBytes } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import { Errors, type Ids, Invoices, Time } from "@frank/core"
import { Clock, Context, Effect, Layer } from "effect"
import { importOptional } from "../../node/internal/optionalPackage.js"
import { renderInvoicePdf, paymentPurpose } from "./internal/invoicePdf.js"
import { type Payee, sandboxPayee } from "./internal/Payee.js"
import { SandboxInvoiceNotFound, SandboxInvoiceSettled } from "./SandboxBankError.js"
import { renderSbpPage } from "./internal/sbpPage.js"

/** The status the bank keeps; `expired` is derived on read. */
export type SandboxBookStatus = "issued" | "paid" | "canceled"
export type SandboxReportedStatus = SandboxBookStatus | "expired"

export interface SandboxBankInvoice {
  readonly partnerId: Ids.PartnerId
  readonly bankInvoiceId: string
  readonly invoiceId: Ids.InvoiceId
  readonly number: string
  readonly status: SandboxBookStatus
  readonly amountRub: number
  readonly comment: string | null
  readonly payer: Invoices.CompanyRequisites
  readonly issuedAt: number
  readonly dueAt: number
  readonly settledAt: number | null
}

export const reportedStatus = (i: Pick<SandboxBankInvoice, "status" | "dueAt">, now: number): SandboxReportedStatus =>
  i.status === "issued" && now > i.dueAt ? "expired" : i.status

export type SettleAction = "pay" | "cancel"

export interface Settled {
  readonly invoice: SandboxBankInvoice
  /** False when the invoice already was in the state the action asks for. */
  readonly changed: boolean
}

export interface SandboxBankShape {
  /** The payer pays (`pay`) or the operator withdraws (`cancel`); by Frank's invoice id or the bank's id. */
  readonly settle: (
    id: string,
    action: SettleAction
  ) => Effect.Effect<Settled, SandboxInvoiceNotFound | SandboxInvoiceSettled | Errors.StoreError>
  readonly find: (bankInvoiceId: string) => Effect.Effect<SandboxBankInvoice | undefined, Errors.StoreError>
  /** The SBP page of an invoice (HTML); undefined when the bank has no such invoice. */
  readonly sbpPage: (bankInvoiceId: string, notice?: string) => Effect.Effect<string | undefined, Errors.StoreError>
  /** Where the SBP link of an invoice points. */
  readonly sbpUrl: (bankInvoiceId: string) => string
}

export class SandboxBank extends Context.Tag("@frank/adapters/SandboxBank")<SandboxBank, SandboxBankShape>() {}

export interface SandboxBankOptions {
  /** The host's public base URL (no trailing slash): SBP links point at its sandbox page. */
  readonly publicBaseUrl: string
  readonly payee?: Payee | undefined
  /** Payment term; 5 days when omitted, the usual «счёт действителен 5 дней». */
  readonly termMs?: number | undefined
}

export const SANDBOX_TERM_MS = 5 * Time.DAY_MS
/** Path of the SBP page under the host's base URL. */
export const SANDBOX_SBP_PATH = "/sandbox/bank/sbp"

const COLUMNS = `partner_id, bank_invoice_id, invoice_id, number::text AS number, status, amount_rub, comment, payer, issued_at, due_at, settled_at`

interface Row extends Omit<SandboxBankInvoice, "payer"> {
  readonly payer: string
}

const fromRow = (r: Row): SandboxBankInvoice => ({ ...r, payer: JSON.parse(r.payer) as Invoices.CompanyRequisites })

/** The BankGateway and the sandbox controls, as one context. */
export const make = (options: SandboxBankOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const payee = options.payee ?? sandboxPayee
    const termMs = options.termMs ?? SANDBOX_TERM_MS
    const sbpUrl = (bankInvoiceId: string) =>
      `${options.publicBaseUrl}${SANDBOX_SBP_PATH}/${encodeURIComponent(bankInvoiceId)}`

    const unavailable = (what: string) => (cause: SqlError.SqlError) =>
      new Invoices.BankUnavailable({ message: `sandbox bank: ${what} failed`, cause })
    const storeError = Errors.storeErrorFor("sandbox bank")

    const byRef = (ref: Invoices.BankInvoiceRef) =>
      Effect.flatMap(
        sql<Row>`SELECT ${columns} FROM sandbox_bank_invoices WHERE partner_id = ${ref.partnerId} AND bank_invoice_id = ${ref.bankInvoiceId}`.pipe(
          Effect.mapError(unavailable("read"))
        ),
        (rows) =>
          rows[0] === undefined
            ? Effect.fail(
                new Invoices.BankUnavailable({
                  message: `sandbox bank: no invoice ${ref.bankInvoiceId} for partner ${ref.partnerId}`
                })
              )
            : Effect.succeed(fromRow(rows[0]))
      )

    // The ids arrive in URLs; one with a NUL character (which text columns cannot hold) names nothing.
    const byBankId = (bankInvoiceId: string) =>
      bankInvoiceId.includes("\u0000")
        ? Effect.succeed(undefined)
        : Effect.map(
            sql<Row>`SELECT ${columns} FROM sandbox_bank_invoices WHERE bank_invoice_id = ${bankInvoiceId}`,
            (rows) => (rows[0] === undefined ? undefined : fromRow(rows[0]))
          )

    const gateway: Invoices.BankGatewayShape = {
      createInvoice: (request) =>
        Effect.gen(function* () {
          const bankInvoiceId = `sbx_${randomBytes(12).toString("hex")}`
          const dueAt = request.issuedAt + termMs
          const [row] = yield* sql<{ number: string }>`INSERT INTO sandbox_bank_invoices ${sql.insert({
            partnerId: request.partnerId,
            bankInvoiceId,
            invoiceId: request.invoiceId,
            status: "issued",
            amountRub: request.amountRub,
            comment: request.comment,
            payer: JSON.stringify(request.payer),
            issuedAt: request.issuedAt,
            dueAt
          })} RETURNING number::text AS number`
          return { bankInvoiceId, number: row?.number ?? "?", status: "issued" as const, dueAt }
        }).pipe(Effect.mapError(unavailable("issue"))),

      fetchStatus: (ref) =>
        Effect.gen(function* () {
          const invoice = yield* byRef(ref)
          return { status: reportedStatus(invoice, yield* Clock.currentTimeMillis) }
        }),

      fetchPdf: (ref) =>
        Effect.gen(function* () {
          const invoice = yield* byRef(ref)
          const now = yield* Clock.currentTimeMillis
          const bytes = yield* Effect.tryPromise({
            try: () =>
              renderInvoicePdf({
                number: invoice.number,
                invoiceId: invoice.invoiceId,
                bankInvoiceId: invoice.bankInvoiceId,
                amountRub: invoice.amountRub,
                comment: invoice.comment,
                payer: invoice.payer,
                payee,
                issuedAt: invoice.issuedAt,
                dueAt: invoice.dueAt,
                status: reportedStatus(invoice, now)
              }),
            catch: (cause) =>
              new Invoices.BankUnavailable({ message: "sandbox bank: rendering the invoice PDF failed", cause })
          })
          return { _tag: "Pdf" as const, bytes, filename: `invoice-${invoice.number}.pdf` }
        }),

      createSbpLink: (ref) =>
        Effect.gen(function* () {
          const invoice = yield* byRef(ref)
          if (invoice.status !== "issued")
            return yield* new Invoices.BankUnavailable({
              message: `sandbox bank: invoice ${ref.bankInvoiceId} is ${invoice.status}`
            })
          return { url: sbpUrl(invoice.bankInvoiceId), expiresAt: invoice.dueAt }
        })
    }

    const settle: SandboxBankShape["settle"] = (id, action) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const target: SandboxBookStatus = action === "pay" ? "paid" : "canceled"
        if (id.includes("\u0000"))
          return yield* new SandboxInvoiceNotFound({ message: "the sandbox bank has no such invoice" })
        // Frank's ids are UUIDs, the bank's start with sbx_: one lookup covers both.
        const updated = yield* sql<Row>`UPDATE sandbox_bank_invoices SET status = ${target}, settled_at = ${now}
          WHERE (invoice_id = ${id} OR bank_invoice_id = ${id}) AND status = 'issued' RETURNING ${columns}`
        if (updated[0] !== undefined) return { invoice: fromRow(updated[0]), changed: true }
        const rows =
          yield* sql<Row>`SELECT ${columns} FROM sandbox_bank_invoices WHERE invoice_id = ${id} OR bank_invoice_id = ${id}`
        const found = rows[0]
        if (found === undefined)
          return yield* new SandboxInvoiceNotFound({ message: `the sandbox bank has no invoice ${id}` })
        if (found.status === target) return { invoice: fromRow(found), changed: false }
        return yield* new SandboxInvoiceSettled({
          message: `invoice ${id} is already ${found.status} at the bank; it cannot be ${target === "paid" ? "paid" : "canceled"}`
        })
      }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(storeError("settle")(e))))

    const sbpPage: SandboxBankShape["sbpPage"] = (bankInvoiceId, notice) =>
      Effect.gen(function* () {
        const invoice = yield* byBankId(bankInvoiceId).pipe(Effect.mapError(storeError("page")))
        if (invoice === undefined) return undefined
        const url = sbpUrl(invoice.bankInvoiceId)
        // qrcode loads on the first page shown, not at start (lean host, docs/performance.md).
        const qrSvg = yield* Effect.promise(async () => {
          const { default: QRCode } = await importOptional(
            "qrcode",
            "The sandbox bank's payment page",
            () => import("qrcode")
          )
          return QRCode.toString(url, { type: "svg", margin: 1, errorCorrectionLevel: "M" })
        })
        return renderSbpPage({
          number: invoice.number,
          amountRub: invoice.amountRub,
          payerName: invoice.payer.companyName,
          payee,
          purpose: paymentPurpose(invoice),
          status: reportedStatus(invoice, yield* Clock.currentTimeMillis),
          payAction: `${SANDBOX_SBP_PATH}/${encodeURIComponent(invoice.bankInvoiceId)}/pay`,
          qrSvg,
          notice
        })
      })

    const control: SandboxBankShape = {
      settle,
      find: (bankInvoiceId) => byBankId(bankInvoiceId).pipe(Effect.mapError(storeError("read"))),
      sbpPage,
      sbpUrl
    }
    return Context.make(Invoices.BankGateway, gateway).pipe(Context.add(SandboxBank, control))
  })

/** The sandbox bank as Frank's BankGateway, plus its controls (SandboxBank). Needs SqlClient. */
export const layer = (
  options: SandboxBankOptions
): Layer.Layer<Invoices.BankGateway | SandboxBank, never, SqlClient.SqlClient> => Layer.effectContext(make(options))
