/**
 * Layout checks measured in the page: a word of a table cell split over two lines (each run of
 * letters and digits measured with Range.getClientRects: more than one line top means it broke
 * inside), the text of an amount or date cell (`.num`, `.nowrap`, `<time>`; not its buttons or
 * links) wrapped at all, and buttons under 44 px.
 */
import type { Page } from "playwright-core"

/** Words of table cells broken inside, and amount/date cells wrapped; empty when none. */
export const brokenInTables = (page: Page): Promise<ReadonlyArray<string>> =>
  page.evaluate(() => {
    const tops = (range: Range) =>
      new Set(
        Array.from(range.getClientRects())
          .filter((r) => r.width > 0)
          .map((r) => Math.round(r.top))
      )
    const found: string[] = []
    for (const cell of Array.from(document.querySelectorAll("td, th"))) {
      const whole = cell.matches(".num, .nowrap") ? cell : cell.querySelector("time")
      const wholeTops = new Set<number>()
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        if (node.parentElement?.closest(".sr-only")) continue
        for (const m of node.data.matchAll(/[\p{L}\p{N}]{2,}/gu)) {
          const range = document.createRange()
          range.setStart(node, m.index ?? 0)
          range.setEnd(node, (m.index ?? 0) + m[0].length)
          if (tops(range).size > 1) found.push(`"${m[0]}" broken in ${cell.tagName.toLowerCase()}`)
        }
        if (whole?.contains(node) && node.data.trim() !== "" && !node.parentElement?.closest("button, a")) {
          const range = document.createRange()
          range.selectNodeContents(node)
          for (const top of tops(range)) wholeTops.add(top)
        }
      }
      if (wholeTops.size > 1) found.push(`"${whole?.textContent}" wrapped`)
    }
    return found
  })

/** Visible buttons (and links styled as buttons) shorter than 44 px. */
export const shortButtons = (page: Page): Promise<ReadonlyArray<string>> =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll("button, .button"))
      .map((b) => ({ text: (b.textContent ?? "").trim(), rect: b.getBoundingClientRect() }))
      .filter(({ rect }) => rect.width > 0 && rect.height < 43.5)
      .map(({ text, rect }) => `"${text}" ${rect.height.toFixed(1)} px`)
  )
