/**
 * The cabinet's two languages: a `lang` cookie set by the switch wins, then the browser's
 * Accept-Language; Russian when neither says English.
 */
import { en, type Strings } from "./strings/en.js"
import { ru } from "./strings/ru.js"

export type Lang = "ru" | "en"
export const LANG_COOKIE = "frank_lang"

export const stringsFor = (lang: Lang): Strings => (lang === "en" ? en : ru)

export const isLang = (value: string | undefined | null): value is Lang => value === "ru" || value === "en"

/** The first of ru/en in Accept-Language order of preference. */
export const langFromAcceptLanguage = (header: string | undefined): Lang => {
  const ranked = (header ?? "")
    .split(",")
    .map((part, i) => {
      const [tag = "", ...params] = part.trim().split(";")
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
      return { lang: tag.toLowerCase().slice(0, 2), q: q === undefined ? 1 : Number(q.slice(2)) || 0, i }
    })
    .filter((e) => isLang(e.lang) && e.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
  const first = ranked[0]?.lang
  return isLang(first) ? first : "ru"
}

export const pickLang = (cookie: string | undefined, acceptLanguage: string | undefined): Lang =>
  isLang(cookie) ? cookie : langFromAcceptLanguage(acceptLanguage)

export type { Strings }
