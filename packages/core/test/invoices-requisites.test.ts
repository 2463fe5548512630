import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { checkInn, isValidEmail, isValidKpp, ogrnProblem } from "../src/invoices/requisites.js"
import { validateProfile } from "../src/invoices/validateProfile.js"

describe("INN checksum (FTS algorithm)", () => {
  it("accepts real 10- and 12-digit INNs", () => {
    // ПАО Сбербанк, АО «Альфа-Банк», ПАО «Газпром нефть»; a sole proprietor's 12-digit INN.
    for (const inn of ["7707083893", "7728168971", "5504036333"])
      expect(checkInn(inn)).toEqual({ _tag: "Valid", kind: "organization" })
    expect(checkInn("500100732259")).toEqual({ _tag: "Valid", kind: "individual" })
  })

  it("refuses a wrong control digit, wrong lengths and non-digits", () => {
    expect(checkInn("7707083894")._tag).toBe("Invalid")
    expect(checkInn("500100732258")._tag).toBe("Invalid")
    expect(checkInn("500100732249")._tag).toBe("Invalid")
    expect(checkInn("770708389")).toMatchObject({ reason: expect.stringContaining("10 digits") })
    expect(checkInn("77070838931")._tag).toBe("Invalid")
    expect(checkInn("77070838a3")).toMatchObject({ reason: "must contain digits only" })
  })

  it("every single-digit change of a valid INN is caught", () => {
    for (const inn of ["7707083893", "500100732259"]) {
      for (let i = 0; i < inn.length; i++) {
        for (let d = 0; d <= 9; d++) {
          const changed = inn.slice(0, i) + d + inn.slice(i + 1)
          if (changed !== inn) expect(checkInn(changed)._tag, changed).toBe("Invalid")
        }
      }
    }
  })
})

describe("ОГРН, КПП, e-mail", () => {
  it("ОГРН and ОГРНИП control digits, and their kind against the INN", () => {
    expect(ogrnProblem("1027700132195", "organization")).toBeUndefined()
    expect(ogrnProblem("304500116000157", "individual")).toBeUndefined()
    expect(ogrnProblem("1027700132196", undefined)).toContain("control digit")
    expect(ogrnProblem("304500116000157", "organization")).toContain("13-digit")
    expect(ogrnProblem("1027700132195", "individual")).toContain("15-digit")
    expect(ogrnProblem("12345", undefined)).toContain("13 digits")
  })

  it("КПП format", () => {
    expect(isValidKpp("773601001")).toBe(true)
    expect(isValidKpp("7736AB001")).toBe(true)
    expect(isValidKpp("77360100")).toBe(false)
    expect(isValidKpp("7736ab001")).toBe(false)
  })

  it("e-mail", () => {
    expect(isValidEmail("buh@romashka.ru")).toBe(true)
    expect(isValidEmail("a.b+c@mail.example.co")).toBe(true)
    for (const bad of ["buh@romashka", "buh romashka@x.ru", "@x.ru", "a@@x.ru", "a@x..ru", "a@.x.ru"])
      expect(isValidEmail(bad), bad).toBe(false)
  })
})

describe("validateProfile", () => {
  const valid = {
    companyName: "  ООО   «Ромашка» ",
    inn: "7707 083 893",
    kpp: "773601001",
    legalAddress: "Москва",
    email: " buh@romashka.ru ",
    postalAddress: "",
    expectedProfileRevision: 0
  }

  it("normalizes a valid save", () => {
    expect(validateProfile(valid)).toEqual(
      Either.right({
        requisites: {
          companyName: "ООО «Ромашка»",
          inn: "7707083893",
          kpp: "773601001",
          ogrn: null,
          legalAddress: "Москва",
          postalAddress: null,
          email: "buh@romashka.ru",
          phone: null
        },
        expectedRevision: 0
      })
    )
  })

  it("lists every violation at once", () => {
    const result = validateProfile({
      inn: "7707083894",
      email: "nope",
      phone: "call me",
      companyName: "x".repeat(301),
      expectedProfileRevision: -1
    })
    expect(Either.isLeft(result) ? result.left : []).toEqual([
      "companyName: at most 300 characters",
      "inn: control digit does not match (not a valid INN)",
      "legalAddress: required",
      "email: must be an e-mail address like accounting@example.ru",
      "phone: digits, spaces, parentheses, dashes and a leading + only (5 to 32 characters)",
      "expectedProfileRevision: must be an integer ≥ 0"
    ])
  })

  it("KPP: required for an organisation, refused for a sole proprietor", () => {
    const org = validateProfile({ ...valid, kpp: null })
    expect(Either.isLeft(org) ? org.left : []).toEqual(["kpp: required for an organisation (10-digit INN)"])
    const ip = validateProfile({ ...valid, inn: "500100732259" })
    expect(Either.isLeft(ip) ? ip.left : []).toEqual(["kpp: a sole proprietor (12-digit INN) has no KPP; omit it"])
    expect(Either.isRight(validateProfile({ ...valid, inn: "500100732259", kpp: null, ogrn: "304500116000157" }))).toBe(
      true
    )
  })
})
