/**
 * Renders a sandbox bank invoice as a real PDF, laid out like a Russian «Счёт на оплату»: the
 * payee's bank requisites block, number and date, supplier and buyer, one line (the balance
 * top-up), totals, the amount in words, the payment term, and the GOST R 56042 payment QR code.
 *
 * pdfkit lays the page out and embeds a subset of DejaVu Sans (full Cyrillic, ₽ and ₣; its TTF is
 * shipped by the `dejavu-fonts-ttf` package, no download); `qrcode` draws the QR code as a PNG.
 * Text is written with pdfkit's ToUnicode map, so the PDF's text is extractable and searchable.
 */
import { type Invoices, Time } from "@frank/core"
import { importOptional, resolveOptional } from "../../../node/internal/optionalPackage.js"
import type { Payee } from "./Payee.js"
import { paymentQrText } from "./paymentQr.js"
import { formatRubles, rublesInWords } from "./rublesInWords.js"

const FEATURE = "Invoice PDFs"
// Resolved on the first invoice: dejavu-fonts-ttf is an optional peer, like pdfkit and qrcode.
const font = (file: string) => resolveOptional("dejavu-fonts-ttf", FEATURE, `dejavu-fonts-ttf/ttf/${file}`)

export interface InvoicePdfData {
  readonly number: string
  readonly invoiceId: string
  readonly bankInvoiceId: string
  readonly amountRub: number
  readonly comment: string | null
  readonly payer: Invoices.CompanyRequisites
  readonly payee: Payee
  readonly issuedAt: number
  readonly dueAt: number
  /** What the bank knows now; a paid or canceled invoice gets a stamp. */
  readonly status: "issued" | "paid" | "canceled" | "expired"
}

const MONTHS = [
  "января",
  "февраля",
  "марта",
  "апреля",
  "мая",
  "июня",
  "июля",
  "августа",
  "сентября",
  "октября",
  "ноября",
  "декабря"
]
/** Moscow time has been UTC+3 all year since 2014. */
const MOSCOW_OFFSET_MS = 3 * Time.HOUR_MS
const moscow = (ms: number) => new Date(ms + MOSCOW_OFFSET_MS)
/** "22 ноября 2026 г." */
export const dateLong = (ms: number) => {
  const d = moscow(ms)
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} г.`
}
/** "22.11.2026" */
export const dateShort = (ms: number) => {
  const d = moscow(ms)
  return `${String(d.getUTCDate()).padStart(2, "0")}.${String(d.getUTCMonth() + 1).padStart(2, "0")}.${d.getUTCFullYear()}`
}

/** The payment purpose the payer copies into the transfer; the bank matches payments by it. */
export const paymentPurpose = (data: Pick<InvoicePdfData, "number" | "issuedAt" | "invoiceId">) =>
  `Оплата по счёту № ${data.number} от ${dateShort(data.issuedAt)}, пополнение баланса Frank, ID ${data.invoiceId}. НДС не облагается`

export const paymentQrFor = (data: InvoicePdfData) =>
  paymentQrText({
    name: data.payee.name,
    personalAcc: data.payee.account,
    bankName: data.payee.bankName,
    bic: data.payee.bic,
    correspAcc: data.payee.correspondentAccount,
    payeeInn: data.payee.inn,
    kpp: data.payee.kpp,
    sumKopecks: data.amountRub * 100,
    purpose: paymentPurpose(data),
    payerInn: data.payer.inn
  })

const party = (r: { name: string; inn: string; kpp: string | null; address: string }) =>
  [r.name, `ИНН ${r.inn}`, ...(r.kpp === null ? [] : [`КПП ${r.kpp}`]), r.address].join(", ")

export const renderInvoicePdf = async (data: InvoicePdfData): Promise<Uint8Array> => {
  // pdfkit and qrcode (about 35 MiB together) load on the first invoice, not at start.
  const [{ default: PDFDocument }, { default: QRCode }] = await Promise.all([
    importOptional("pdfkit", FEATURE, () => import("pdfkit")),
    importOptional("qrcode", FEATURE, () => import("qrcode"))
  ])
  const [regular, bold] = [font("DejaVuSans.ttf"), font("DejaVuSans-Bold.ttf")]
  const qr = await QRCode.toBuffer(paymentQrFor(data), { errorCorrectionLevel: "M", margin: 1, width: 300 })
  const doc = new PDFDocument({
    size: "A4",
    margin: 40,
    info: {
      Title: `Счёт на оплату № ${data.number} от ${dateLong(data.issuedAt)}`,
      Author: data.payee.name,
      Subject: `Пополнение баланса Frank: ${data.payer.companyName}`,
      CreationDate: new Date(data.issuedAt)
    }
  })
  const chunks: Buffer[] = []
  doc.on("data", (c: Buffer) => chunks.push(c))
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))))
    doc.on("error", reject)
  })
  doc.registerFont("regular", regular)
  doc.registerFont("bold", bold)

  const left = 40
  const width = 515
  const sum = formatRubles(data.amountRub * 100)
  const p = data.payee

  // Sandbox banner: nobody should mistake this for a real bill.
  doc.font("bold").fontSize(9).fillColor("#b00020")
  doc.text("ОБРАЗЕЦ · ПЕСОЧНИЦА FRANK: тестовый счёт, настоящие деньги по нему не принимаются", left, 30, {
    width,
    align: "center"
  })
  doc.fillColor("black")

  // The bank requisites block, in the usual grid.
  const top = 50
  const col = [left, left + 300, left + 345, left + width]
  const row = [top, top + 34, top + 48, top + 62, top + 96]
  doc.lineWidth(0.7)
  doc.rect(left, top, width, row[4]! - top).stroke()
  doc.moveTo(col[1]!, top).lineTo(col[1]!, row[4]!).stroke()
  doc.moveTo(col[2]!, top).lineTo(col[2]!, row[4]!).stroke()
  doc.moveTo(left, row[2]!).lineTo(col[3]!, row[2]!).stroke()
  doc.moveTo(col[1]!, row[1]!).lineTo(col[2]!, row[1]!).stroke()
  doc.moveTo(left, row[3]!).lineTo(col[1]!, row[3]!).stroke()
  doc
    .moveTo(left + 150, row[2]!)
    .lineTo(left + 150, row[3]!)
    .stroke()
  doc.font("regular").fontSize(9)
  doc.text(p.bankName, left + 4, top + 4, { width: 292 })
  doc.fontSize(7).text("Банк получателя", left + 4, row[2]! - 10)
  doc.fontSize(9)
  doc.text("БИК", col[1]! + 4, top + 4)
  doc.text(p.bic, col[2]! + 4, top + 4)
  doc.text("Сч. №", col[1]! + 4, row[1]! + 3)
  doc.text(p.correspondentAccount, col[2]! + 4, row[1]! + 3)
  doc.text(`ИНН ${p.inn}`, left + 4, row[2]! + 3)
  doc.text(`КПП ${p.kpp}`, left + 154, row[2]! + 3)
  doc.text("Сч. №", col[1]! + 4, row[2]! + 3)
  doc.text(p.account, col[2]! + 4, row[2]! + 3)
  doc.text(p.name, left + 4, row[3]! + 4, { width: 292 })
  doc.fontSize(7).text("Получатель", left + 4, row[4]! - 10)

  // Title.
  doc
    .font("bold")
    .fontSize(14)
    .text(`Счёт на оплату № ${data.number} от ${dateLong(data.issuedAt)}`, left, row[4]! + 18, { width })
  doc
    .moveTo(left, doc.y + 4)
    .lineTo(left + width, doc.y + 4)
    .lineWidth(1.5)
    .stroke()
  doc.lineWidth(0.7)

  // Parties.
  const partyLine = (label: string, text: string) => {
    const y = doc.y + 10
    doc.font("regular").fontSize(9).text(label, left, y, { width: 95 })
    doc.font("bold").text(text, left + 100, y, { width: width - 100 })
  }
  partyLine("Поставщик (исполнитель):", party({ name: p.name, inn: p.inn, kpp: p.kpp, address: p.address }))
  partyLine(
    "Покупатель (заказчик):",
    party({ name: data.payer.companyName, inn: data.payer.inn, kpp: data.payer.kpp, address: data.payer.legalAddress })
  )
  partyLine("Основание:", "Оферта Frank о пополнении баланса партнёрского аккаунта")

  // The one line of the invoice.
  const tableTop = doc.y + 14
  const cols = [left, left + 25, left + 300, left + 345, left + 380, left + 450, left + width]
  const heads = ["№", "Товары (работы, услуги)", "Кол-во", "Ед.", "Цена", "Сумма"]
  const cells = ["1", "Пополнение баланса аккаунта Frank (1 ₽ = 1 ₣)", "1", "усл.", sum, sum]
  const headHeight = 16
  const bodyHeight = 28
  doc.rect(left, tableTop, width, headHeight + bodyHeight).stroke()
  doc
    .moveTo(left, tableTop + headHeight)
    .lineTo(left + width, tableTop + headHeight)
    .stroke()
  for (const x of cols.slice(1, -1))
    doc
      .moveTo(x, tableTop)
      .lineTo(x, tableTop + headHeight + bodyHeight)
      .stroke()
  for (const [i, h] of heads.entries())
    doc
      .font("bold")
      .fontSize(8)
      .text(h, cols[i]! + 3, tableTop + 4, { width: cols[i + 1]! - cols[i]! - 6, align: "center" })
  for (const [i, c] of cells.entries())
    doc
      .font("regular")
      .fontSize(8.5)
      .text(c, cols[i]! + 3, tableTop + headHeight + 4, {
        width: cols[i + 1]! - cols[i]! - 6,
        align: i >= 4 ? "right" : i === 1 ? "left" : "center"
      })

  // Totals.
  let y = tableTop + headHeight + bodyHeight + 8
  for (const [label, value] of [
    ["Итого:", sum],
    ["Без налога (НДС):", "—"],
    ["Всего к оплате:", sum]
  ] as const) {
    doc
      .font("bold")
      .fontSize(9.5)
      .text(label, left + 250, y, { width: 195, align: "right" })
    doc.text(value, left + 450, y, { width: width - 450, align: "right" })
    y += 14
  }
  doc
    .font("regular")
    .fontSize(9.5)
    .text(`Всего наименований 1, на сумму ${sum} руб.`, left, y + 8, { width })
  doc.font("bold").text(rublesInWords(data.amountRub * 100), left, doc.y + 2, { width })
  doc
    .moveTo(left, doc.y + 6)
    .lineTo(left + width, doc.y + 6)
    .lineWidth(1.5)
    .stroke()
  doc.lineWidth(0.7)

  // Terms, comment, references — beside the QR code.
  const qrSize = 120
  const infoTop = doc.y + 16
  const infoWidth = width - qrSize - 16
  doc.font("regular").fontSize(8.5)
  doc.text(`Оплатить не позднее ${dateLong(data.dueAt)}`, left, infoTop, { width: infoWidth })
  doc.text(`Назначение платежа: ${paymentPurpose(data)}.`, { width: infoWidth })
  if (data.comment !== null) doc.text(`Комментарий: ${data.comment}`, { width: infoWidth })
  doc.text(`Идентификатор счёта Frank: ${data.invoiceId}; номер в банке: ${data.bankInvoiceId}.`, { width: infoWidth })
  doc.text("Баланс пополняется автоматически после поступления оплаты: 1 ₽ = 1 ₣.", { width: infoWidth })
  doc.image(qr, left + width - qrSize, infoTop, { width: qrSize })
  doc.fontSize(7).text("QR-код для оплаты (ГОСТ Р 56042-2014)", left + width - qrSize, infoTop + qrSize + 2, {
    width: qrSize,
    align: "center"
  })

  // Signatures.
  const signY = Math.max(doc.y, infoTop + qrSize + 16) + 24
  doc.fontSize(9)
  doc.text("Руководитель ____________________ / Песочница П. П. /", left, signY, { width: 260 })
  doc.text("Бухгалтер ____________________ / Образцова О. О. /", left + 270, signY, { width: 245 })

  if (data.status === "paid" || data.status === "canceled") {
    doc.save()
    doc.rotate(-15, { origin: [300, 420] })
    doc
      .font("bold")
      .fontSize(40)
      .fillColor(data.status === "paid" ? "#1b7f3b" : "#b00020")
      .opacity(0.35)
    doc.text(data.status === "paid" ? "ОПЛАЧЕН" : "ОТМЕНЁН", 150, 400, { width: 300, align: "center" })
    doc.restore()
  }

  doc.end()
  return done
}
