// The cabinet's one script (CSP: script-src 'self', no inline code): copy buttons for secrets
// shown once, the loading state of actions, and the 30-day spend chart drawn with uPlot from the
// data the page embeds as JSON. Every page works without it; it only adds to what the HTML does.

// An action in progress: the form is marked busy (a spinner on its button, announced through
// aria-busy) and a second submit of the same form is ignored until the next page arrives.
document.addEventListener("submit", (event) => {
  const form = event.target
  if (!(form instanceof HTMLFormElement) || event.defaultPrevented) return
  if (form.getAttribute("aria-busy") === "true") {
    event.preventDefault()
    return
  }
  form.setAttribute("aria-busy", "true")
  const button = event.submitter || form.querySelector('button[type="submit"]')
  if (button !== null) {
    button.setAttribute("data-busy-active", "")
    button.setAttribute(
      "aria-label",
      `${(button.textContent || "").trim()} — ${document.body.getAttribute("data-busy") || "…"}`
    )
  }
})

// Back/forward restores a page from the cache as it was left: its forms are idle again.
window.addEventListener("pageshow", () => {
  for (const form of document.querySelectorAll('form[aria-busy="true"]')) {
    form.removeAttribute("aria-busy")
    for (const b of form.querySelectorAll("button[data-busy-active]")) {
      b.removeAttribute("data-busy-active")
      b.removeAttribute("aria-label")
    }
  }
})
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null
  if (button === null) return
  const source = document.getElementById(button.getAttribute("data-copy") || "")
  if (source === null || !navigator.clipboard) return
  navigator.clipboard.writeText(source.textContent || "").then(() => {
    button.textContent = button.getAttribute("data-copied") || button.textContent
  })
})

document.addEventListener("DOMContentLoaded", () => {
  const holder = document.getElementById("spend-chart")
  const data = document.getElementById("spend-data")
  if (holder === null || data === null) return
  const script = document.createElement("script")
  script.src = holder.getAttribute("data-lib") || ""
  script.onload = () => drawSpend(holder, JSON.parse(data.textContent || "{}"))
  document.head.appendChild(script)
})

function drawSpend(holder, input) {
  const uPlot = window.uPlot
  if (!uPlot || !Array.isArray(input.days)) return
  const xs = input.days.map((d) => Date.parse(d.date) / 1000)
  const ys = input.days.map((d) => d.spend)
  const width = Math.max(280, holder.clientWidth)
  const bars = uPlot.paths?.bars ? uPlot.paths.bars({ size: [0.7, 24] }) : undefined
  // Axis words in the page's language and colours of the page's scheme (light or dark).
  const day = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    day: "numeric",
    month: "short",
    timeZone: "UTC"
  })
  const ink = getComputedStyle(document.body).color
  const grid = { stroke: "rgba(127,127,127,.25)" }
  const chart = new uPlot(
    {
      width,
      height: 220,
      fmtDate: () => (date) => day.format(date),
      tzDate: (ts) => new Date(ts * 1000),
      series: [{}, { label: input.label || "", stroke: "#3b6fe0", fill: "rgba(59,111,224,.35)", paths: bars }],
      axes: [
        { stroke: ink, grid, ticks: grid },
        { size: 60, stroke: ink, grid, ticks: grid }
      ],
      legend: { show: false }
    },
    [xs, ys],
    holder
  )
  holder.setAttribute("data-drawn", "true")
  window.addEventListener("resize", () => chart.setSize({ width: Math.max(280, holder.clientWidth), height: 220 }))
}
