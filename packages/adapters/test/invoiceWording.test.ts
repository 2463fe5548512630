/**
 * What the sandbox bank prints: amounts in Russian words and figures, the GOST R 56042 payment
 * QR text, dates in Moscow time, and well-formed default requisites of the payee.
 */
import { Invoices } from "@frank/core"
import { describe, expect, it } from "@effect/vitest"
import { dateLong, dateShort } from "../src/sandbox/bank/internal/invoicePdf.js"
import {
  isCorrespondentAccountValid,
  isSettlementAccountValid,
  sandboxPayee
} from "../src/sandbox/bank/internal/Payee.js"
import { paymentQrText } from "../src/sandbox/bank/internal/paymentQr.js"
import { formatRubles, integerInWords, rublesInWords } from "../src/sandbox/bank/internal/rublesInWords.js"

describe("amounts in words", () => {
  it("spells rubles with the right gender and plural forms", () => {
    expect(rublesInWords(100)).toBe("Один рубль 00 копеек")
    expect(rublesInWords(201)).toBe("Два рубля 01 копейка")
    expect(rublesInWords(1_100)).toBe("Одиннадцать рублей 00 копеек")
    expect(rublesInWords(2_122)).toBe("Двадцать один рубль 22 копейки")
    expect(rublesInWords(100_000)).toBe("Одна тысяча рублей 00 копеек")
    expect(rublesInWords(200_000)).toBe("Две тысячи рублей 00 копеек")
    expect(rublesInWords(1_234_500)).toBe("Двенадцать тысяч триста сорок пять рублей 00 копеек")
    expect(rublesInWords(10_000_000)).toBe("Сто тысяч рублей 00 копеек")
    expect(rublesInWords(0)).toBe("Ноль рублей 00 копеек")
    expect(integerInWords(1_011_014)).toBe("один миллион одиннадцать тысяч четырнадцать")
    expect(integerInWords(2_000_000_512)).toBe("два миллиарда пятьсот двенадцать")
  })

  it("figures: groups of three, comma before kopecks", () => {
    expect(formatRubles(1_234_500)).toBe("12 345,00")
    expect(formatRubles(10_000_000)).toBe("100 000,00")
    expect(formatRubles(105)).toBe("1,05")
  })
})

describe("payment QR text (ST00012)", () => {
  it("has the header, the required keys in order, the sum in kopecks, and no stray separators", () => {
    const text = paymentQrText({
      name: "ООО «Франк | Песочница»",
      personalAcc: "40702810600000012345",
      bankName: "АО «Банк Песочница»",
      bic: "044525999",
      correspAcc: "30101810600000000999",
      payeeInn: "7705123452",
      kpp: "770501001",
      sumKopecks: 1_234_500,
      purpose: "Оплата по счёту № 7",
      payerInn: "7707083893"
    })
    expect(text).toBe(
      "ST00012|Name=ООО «Франк / Песочница»|PersonalAcc=40702810600000012345|BankName=АО «Банк Песочница»|BIC=044525999|CorrespAcc=30101810600000000999|PayeeINN=7705123452|KPP=770501001|Sum=1234500|Purpose=Оплата по счёту № 7|PayerINN=7707083893"
    )
  })
})

describe("printed dates and the payee", () => {
  it("dates are Moscow dates", () => {
    // 22:30 UTC is already the next day in Moscow.
    expect(dateLong(Date.UTC(2026, 10, 22, 22, 30))).toBe("23 ноября 2026 г.")
    expect(dateShort(Date.UTC(2026, 0, 5, 9))).toBe("05.01.2026")
  })

  it("the default payee's requisites are well-formed", () => {
    expect(Invoices.isValidInn(sandboxPayee.inn)).toBe(true)
    expect(Invoices.isValidKpp(sandboxPayee.kpp)).toBe(true)
    expect(isSettlementAccountValid(sandboxPayee.account, sandboxPayee.bic)).toBe(true)
    expect(isCorrespondentAccountValid(sandboxPayee.correspondentAccount, sandboxPayee.bic)).toBe(true)
    // A real pair: ПАО Сбербанк's correspondent account against its BIC; a changed digit is caught.
    expect(isCorrespondentAccountValid("30101810400000000225", "044525225")).toBe(true)
    expect(isCorrespondentAccountValid("30101810500000000225", "044525225")).toBe(false)
    expect(isSettlementAccountValid("40702810700000012345", sandboxPayee.bic)).toBe(false)
  })
})
