/**
 * Amounts in Russian words, as invoices print them ("Двенадцать тысяч триста сорок пять рублей
 * 00 копеек"), and in figures ("12 345,00"). Pure; kopecks are given as an integer.
 */

const UNITS_MASCULINE = ["", "один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять"]
const UNITS_FEMININE = ["", "одна", "две", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять"]
const TEENS = [
  "десять",
  "одиннадцать",
  "двенадцать",
  "тринадцать",
  "четырнадцать",
  "пятнадцать",
  "шестнадцать",
  "семнадцать",
  "восемнадцать",
  "девятнадцать"
]
const TENS = [
  "",
  "",
  "двадцать",
  "тридцать",
  "сорок",
  "пятьдесят",
  "шестьдесят",
  "семьдесят",
  "восемьдесят",
  "девяносто"
]
const HUNDREDS = [
  "",
  "сто",
  "двести",
  "триста",
  "четыреста",
  "пятьсот",
  "шестьсот",
  "семьсот",
  "восемьсот",
  "девятьсот"
]

/** The Russian plural form for `n`: один рубль, два рубля, пять рублей. */
export const pluralRu = (n: number, one: string, few: string, many: string): string => {
  const mod100 = n % 100
  const mod10 = n % 10
  if (mod100 >= 11 && mod100 <= 14) return many
  if (mod10 === 1) return one
  if (mod10 >= 2 && mod10 <= 4) return few
  return many
}

/** 0..999 in words; empty for 0. */
const triad = (n: number, feminine: boolean): ReadonlyArray<string> => {
  const h = Math.floor(n / 100)
  const rest = n % 100
  const words = [HUNDREDS[h] ?? ""]
  if (rest >= 10 && rest < 20) words.push(TEENS[rest - 10] ?? "")
  else {
    words.push(TENS[Math.floor(rest / 10)] ?? "")
    words.push((feminine ? UNITS_FEMININE : UNITS_MASCULINE)[rest % 10] ?? "")
  }
  return words.filter((w) => w.length > 0)
}

interface Scale {
  readonly value: number
  readonly feminine: boolean
  readonly forms: readonly [string, string, string]
}

const SCALES: ReadonlyArray<Scale> = [
  { value: 1_000_000_000, feminine: false, forms: ["миллиард", "миллиарда", "миллиардов"] },
  { value: 1_000_000, feminine: false, forms: ["миллион", "миллиона", "миллионов"] },
  { value: 1_000, feminine: true, forms: ["тысяча", "тысячи", "тысяч"] }
]

/** A whole number of rubles in words (masculine: "один рубль", "две тысячи"), lower case. */
export const integerInWords = (n: number): string => {
  if (!Number.isSafeInteger(n) || n < 0 || n >= 1_000_000_000_000) throw new RangeError(`cannot spell ${n}`)
  if (n === 0) return "ноль"
  const words: string[] = []
  let rest = n
  for (const scale of SCALES) {
    const count = Math.floor(rest / scale.value)
    rest %= scale.value
    if (count > 0) words.push(...triad(count, scale.feminine), pluralRu(count, ...scale.forms))
  }
  words.push(...triad(rest, false))
  return words.join(" ")
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** "Двенадцать тысяч триста сорок пять рублей 00 копеек". */
export const rublesInWords = (kopecks: number): string => {
  if (!Number.isSafeInteger(kopecks) || kopecks < 0) throw new RangeError(`cannot spell ${kopecks} kopecks`)
  const rubles = Math.floor(kopecks / 100)
  const kop = kopecks % 100
  return `${capitalize(integerInWords(rubles))} ${pluralRu(rubles, "рубль", "рубля", "рублей")} ${String(kop).padStart(2, "0")} ${pluralRu(kop, "копейка", "копейки", "копеек")}`
}

/** "12 345,00": groups of three separated by spaces, a comma before kopecks. */
export const formatRubles = (kopecks: number): string => {
  const rubles = Math.floor(kopecks / 100)
  const kop = String(kopecks % 100).padStart(2, "0")
  return `${String(rubles).replace(/\B(?=(\d{3})+(?!\d))/g, " ")},${kop}`
}
