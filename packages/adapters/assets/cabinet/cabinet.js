// The cabinet's one script (CSP: script-src 'self', no inline code): copy buttons for secrets
// shown once, and the 30-day spend chart drawn with uPlot from the data the page embeds as JSON.
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
  const chart = new uPlot(
    {
      width,
      height: 220,
      series: [{}, { label: input.label || "", stroke: "#1d4ed8", fill: "rgba(29,78,216,.35)", paths: bars }],
      axes: [{}, { size: 60 }],
      legend: { show: false }
    },
    [xs, ys],
    holder
  )
  holder.setAttribute("data-drawn", "true")
  window.addEventListener("resize", () => chart.setSize({ width: Math.max(280, holder.clientWidth), height: 220 }))
}
