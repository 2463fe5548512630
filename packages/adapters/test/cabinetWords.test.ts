/**
 * Every word in both languages: the Russian strings have the English ones' keys, every machine code
 * the partner API documents (and every profile problem code) has a sentence in both, and every
 * value a page shows as words (statuses, kinds, event types, plans, audit actions) is translated.
 */
import { describe, expect, it } from "@effect/vitest"
import { Events, Invoices, Ledger, Payments, Tariffs, Tasks, Webhooks } from "@frank/core"
import { partnerAuthCodes, partnerOperationDocs } from "@frank/core/http"
import { KNOWN_ACTIONS } from "../src/cabinet/pages/AuditPage.js"
import { messagesByField } from "../src/cabinet/pages/invoiceProfileForm.js"
import { errorText } from "../src/cabinet/routes.js"
import { en } from "../src/cabinet/strings/en.js"
import { ru } from "../src/cabinet/strings/ru.js"

/** The key paths of a strings object (functions are leaves). */
const paths = (value: unknown, prefix = ""): ReadonlyArray<string> =>
  typeof value === "object" && value !== null
    ? Object.entries(value).flatMap(([k, v]) => paths(v, prefix === "" ? k : `${prefix}.${k}`))
    : [prefix]

const documentedCodes = (): ReadonlyArray<string> => {
  const codes = new Set<string>(["VALIDATION_FAILED", "INTERNAL_ERROR", "ROUTE_NOT_FOUND", "TASK_EXPIRED"])
  for (const doc of Object.values(partnerOperationDocs))
    for (const list of Object.values(doc.codes ?? {})) for (const c of list ?? []) codes.add(c)
  for (const scheme of Object.values(partnerAuthCodes))
    for (const list of Object.values(scheme)) for (const c of list ?? []) codes.add(c)
  return [...codes].sort()
}

const PROFILE_CODES = [
  "REQUIRED",
  "TOO_LONG",
  "INN_NOT_DIGITS",
  "INN_CHECKSUM",
  "INN_LENGTH",
  "KPP_FORMAT",
  "KPP_REQUIRED_FOR_ORGANIZATION",
  "KPP_FORBIDDEN_FOR_INDIVIDUAL",
  "OGRN_NOT_DIGITS",
  "OGRN_LENGTH",
  "OGRN_ORGANIZATION_LENGTH",
  "OGRN_INDIVIDUAL_LENGTH",
  "OGRN_CHECKSUM",
  "EMAIL_FORMAT",
  "PHONE_FORMAT",
  "REVISION_REQUIRED",
  "REVISION_INVALID"
] as const

describe("cabinet words", () => {
  it("Russian has exactly the English keys", () => {
    expect(paths(ru).slice().sort()).toEqual(paths(en).slice().sort())
  })

  it("every documented machine code reads as a sentence in both languages", () => {
    const codes = documentedCodes()
    expect(codes.length).toBeGreaterThan(50)
    for (const t of [en, ru]) {
      const missing = codes.filter((c) => (t.errors.codes[c] ?? "").length === 0)
      expect(missing, t.lang).toEqual([])
    }
    for (const c of codes) expect(ru.errors.codes[c], c).not.toBe(en.errors.codes[c])
  })

  it("every value a page shows as words is translated, differently in Russian", () => {
    const sets: ReadonlyArray<[string, ReadonlyArray<string>, (t: typeof en) => Record<string, string>]> = [
      ["invoice status", Invoices.InvoiceStatus.literals, (t) => t.labels.invoiceStatus],
      ["payment status", Payments.PaymentStatus.literals, (t) => t.labels.paymentStatus],
      ["task status", Tasks.TaskStatus.literals, (t) => t.labels.taskStatus],
      ["delivery status", Webhooks.DeliveryStatus.literals, (t) => t.labels.deliveryStatus],
      ["entry kind", Ledger.EntryKind.literals, (t) => t.labels.entryKind],
      ["transaction type", Ledger.TransactionType.literals, (t) => t.transactions.types],
      ["event type", Events.allEventTypes, (t) => t.labels.eventTypes],
      ["plan", Tariffs.Plan.literals, (t) => t.labels.plan],
      ["audit action", KNOWN_ACTIONS, (t) => t.labels.auditActions]
    ]
    for (const [what, values, of] of sets)
      for (const v of values) {
        expect(of(en)[v], `${what} ${v} in en`).toBeTruthy()
        expect(of(ru)[v], `${what} ${v} in ru`).toBeTruthy()
        expect(of(ru)[v], `${what} ${v}`).not.toBe(of(en)[v])
      }
  })

  it("a profile problem is worded by its code under its field; the English line is the fallback", () => {
    for (const code of PROFILE_CODES) {
      expect(en.errors.profileProblems[code]?.(120), code).toBeTruthy()
      expect(ru.errors.profileProblems[code]?.(120), code).toMatch(/[а-яё]/i)
    }
    const issues = [
      { field: "inn", code: "INN_CHECKSUM", message: "inn: control digit does not match (not a valid INN)" },
      { field: "companyName", code: "TOO_LONG", max: 300, message: "companyName: at most 300 characters" },
      { field: "expectedProfileRevision", code: "REVISION_INVALID", message: "expectedProfileRevision: bad" }
    ]
    const worded = messagesByField(
      ru,
      issues,
      issues.map((i) => i.message)
    )
    expect(worded.byField.inn).toEqual(["не сходятся контрольные цифры: это не ИНН"])
    expect(worded.byField.companyName).toEqual(["не длиннее 300 символов"])
    expect(worded.general).toEqual(["обновите страницу и сохраните ещё раз"])
    expect(messagesByField(ru, undefined, ["inn: must contain digits only"]).byField.inn).toEqual([
      "must contain digits only"
    ])
  })

  it("a recovery window's problems are worded by their codes, in Russian too", () => {
    const issues = [
      { code: "RECOVERY_SINCE_FORMAT", message: "since: must be …" },
      { code: "RECOVERY_UNTIL_FORMAT", message: "until: must be …" },
      { code: "RECOVERY_SINCE_TOO_OLD", days: 30, at: "2026-10-21T12:00:00.000Z", message: "since: must not be …" },
      { code: "RECOVERY_SINCE_NOT_PAST", message: "since: must be in the past" },
      { code: "RECOVERY_SINCE_NOT_BEFORE_UNTIL", message: "since: must be before until" },
      { code: "RECOVERY_WINDOW_TOO_LONG", days: 14, message: "the window … 14 days" }
    ]
    const e = new Webhooks.RecoveryWindowInvalid({ message: "m", messages: issues.map((i) => i.message), issues })
    const russian = errorText(ru, e)
    expect(russian).toHaveLength(issues.length)
    for (const line of russian) expect(line).toMatch(/[а-яё]/i)
    expect(russian[2]).toBe("«С» не раньше 2026-10-21T12:00:00.000Z: доставки хранятся 30 дн., более старых уже нет")
    expect(russian[5]).toBe("Окно не длиннее 14 дн.")
    expect(errorText(en, e)[5]).toBe("The window may cover at most 14 days")
    // A code no table words keeps the engine's English lines.
    const unknown = new Webhooks.RecoveryWindowInvalid({
      message: "m",
      messages: ["x: bad"],
      issues: [{ code: "NEW", message: "x: bad" }]
    })
    expect(errorText(ru, unknown)).toEqual(["x: bad"])
  })
})
