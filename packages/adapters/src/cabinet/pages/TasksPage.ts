/**
 * Tasks: the history with status, cost, when an unfinished task's reservation lapses, and a
 * result download (the spec sends a partner whose launch response was lost here to check before
 * paying again).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Ids, Money, Tasks } from "@frank/core"
import { idOr } from "@frank/core/http"
import { Effect } from "effect"
import type { CabinetContext } from "../CabinetRequest.js"
import { statusBadge, TASK_TONES } from "../badges.js"
import { emptyState, formatDate, formatNumber, html, htmlResponse, page } from "../html.js"
import { type CabinetRoute, get } from "../routes.js"

const PAGE_SIZE = 20

const row = (ctx: CabinetContext, task: Tasks.Task) => {
  const t = ctx.t.tasks
  const franks = (minor: number) => ctx.t.franks(formatNumber(ctx.t, Money.minorToFranks(minor)))
  const result =
    task.status === "succeeded" && task.result !== null
      ? html`<a href="${ctx.base}/tasks/${task.id}/result" download>${t.download}</a>`
      : task.failure !== null
        ? html`<code>${task.failure.code}</code> ${ctx.t.errors.codes[task.failure.code] ?? task.failure.message}`
        : ""
  // Only while the task runs: once it ended, its reservation is settled and nothing lapses.
  const expires =
    task.status === "succeeded" || task.status === "failed"
      ? ""
      : html`<time datetime="${new Date(task.expiresAt).toISOString()}">${formatDate(ctx.t, task.expiresAt)}</time>`
  return html`<tr data-testid="task-row" data-status="${task.status}"><td><code>${task.id}</code></td><td>${task.modelId}</td><td data-testid="task-status">${statusBadge(ctx.t.labels.taskStatus, TASK_TONES, task.status)}</td>
<td class="num">${task.costMinor === null ? franks(task.reservedMinor) : franks(task.costMinor)}</td><td class="nowrap">${formatDate(ctx.t, task.createdAt)}</td><td data-testid="task-expires">${expires}</td><td>${result}</td></tr>`
}

export const tasksRoutes = Effect.gen(function* () {
  const tasks = yield* Tasks.Tasks

  const list = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const t = ctx.t.tasks
      const status = Tasks.TaskStatus.literals.find((s) => s === ctx.query.get("status"))
      const pageNo = Math.max(1, Math.floor(Number(ctx.query.get("page") ?? "1")) || 1)
      const found = yield* Effect.orDie(tasks.list(ctx.partnerId, { status }, (pageNo - 1) * PAGE_SIZE, PAGE_SIZE))
      const options = Tasks.TaskStatus.literals.map(
        (s) => html`<option value="${s}"${s === status ? " selected" : ""}>${ctx.t.labels.taskStatus[s] ?? s}</option>`
      )
      const filter = html`<form method="get" action="${ctx.base}/tasks" class="inline"><label>${t.status} <select name="status"><option value="">${t.allStatuses}</option>${options}</select></label> <button type="submit">${ctx.t.filter}</button></form>`
      const table = html`<div class="scroll"><table class="free-first"><thead><tr><th scope="col">ID</th><th scope="col">${t.model}</th><th scope="col">${t.status}</th><th scope="col" class="num">${t.cost}</th><th scope="col">${t.created}</th><th scope="col">${t.expires}</th><th scope="col">${t.result}</th></tr></thead>
<tbody>${found.items.map((task) => row(ctx, task))}</tbody></table></div>${found.items.length === 0 && (status === undefined ? emptyState(ctx.t.emptyStates.tasks, { href: `${ctx.base}/prices`, label: ctx.t.emptyStates.tasksNext }) : emptyState(ctx.t.emptyStates.filtered, { href: `${ctx.base}/tasks`, label: ctx.t.emptyStates.filteredNext }))}`
      const more =
        found.items.length === PAGE_SIZE
          ? html`<p><a href="${ctx.base}/tasks?${status === undefined ? "" : `status=${status}&`}page=${pageNo + 1}">${ctx.t.next}</a></p>`
          : ""
      return htmlResponse(page(ctx, "tasks", t.title, html`<section>${filter}${table}${more}</section>`))
    })

  const result = (ctx: CabinetContext) =>
    Effect.gen(function* () {
      const raw = (yield* HttpRouter.params).id ?? ""
      // A malformed id names no task: the same page as a missing one.
      const content = yield* idOr(Ids.TaskId, raw, () => new Tasks.TaskNotFound({ message: "no such task" })).pipe(
        Effect.flatMap((id) => tasks.result(ctx.partnerId, id)),
        Effect.catchTag("StoreError", Effect.die),
        Effect.either
      )
      if (content._tag === "Left")
        return htmlResponse(
          page(ctx, "tasks", ctx.t.tasks.title, html`<p role="alert">${ctx.t.errors.notFound}</p>`),
          404
        )
      return HttpServerResponse.uint8Array(content.right.bytes, {
        contentType: content.right.mimeType,
        headers: {
          "content-disposition": `attachment; filename="${raw.replace(/[^\w-]/g, "_")}"`,
          "cache-control": "no-store"
        }
      })
    })

  const routes: ReadonlyArray<CabinetRoute> = [get("/tasks", list), get("/tasks/:id/result", result)]
  return routes
})
