/**
 * Handlers of the ledger group: rows, CSV export, daily usage. Platform-neutral.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Stream } from "effect"
import { CSV_EXPORT_MAX_ROWS, csvExportStream } from "../../../ledger/csvExport.js"
import { dailyUsageView, dayStart, MAX_USAGE_RANGE_DAYS } from "../../../ledger/dailyUsage.js"
import type { LedgerEntry } from "../../../ledger/Entry.js"
import { type EntryFilter, parseIsoBound } from "../../../ledger/EntryFilter.js"
import { Ledger } from "../../../ledger/Ledger.js"
import { MICROS_PER_FRANK, minorToFranks } from "../../../internal/money.js"
import { validationFailed } from "../../errors/ApiError.js"
import { orApiError } from "../../errors/domainErrors.js"
import type { TransactionView } from "../../groups/LedgerGroup.js"
import { PartnerApi } from "../../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"
import { DAY_MS } from "../../../timeUnits.js"
import { iso } from "../../../isoTime.js"

export const transactionView = (e: LedgerEntry): TransactionView => ({
  id: e.id,
  type: e.type,
  kind: e.kind,
  amount: minorToFranks(e.amountMinor),
  pricePerUnit: e.unitPriceMicros === null ? null : e.unitPriceMicros / MICROS_PER_FRANK,
  taskId: e.taskId,
  attribution: e.attribution,
  label: e.label,
  description: e.description,
  createdAt: iso(e.occurredAt)
})

interface FilterQuery {
  readonly type?: EntryFilter["type"]
  readonly attribution?: "all" | "company" | "personal" | undefined
  readonly dateFrom?: string | undefined
  readonly dateTo?: string | undefined
}

/** Query → store filter; every bad date is reported at once. */
const toFilter = (q: FilterQuery) => {
  const problems: string[] = []
  const fromMs = q.dateFrom === undefined ? undefined : parseIsoBound(q.dateFrom, "from")
  const untilMs = q.dateTo === undefined ? undefined : parseIsoBound(q.dateTo, "to")
  if (q.dateFrom !== undefined && fromMs === undefined) problems.push("dateFrom must be an ISO 8601 date or date-time")
  if (q.dateTo !== undefined && untilMs === undefined) problems.push("dateTo must be an ISO 8601 date or date-time")
  if (fromMs !== undefined && untilMs !== undefined && fromMs >= untilMs)
    problems.push("dateFrom must be before dateTo")
  if (problems.length > 0) return Effect.fail(validationFailed(problems))
  const filter: EntryFilter = {
    type: q.type,
    attribution: q.attribution === "all" ? undefined : q.attribution,
    fromMs,
    untilMs
  }
  return Effect.succeed(filter)
}

export const LedgerHandlers = HttpApiBuilder.group(PartnerApi, "ledger", (handlers) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    return handlers
      .handle("transactions", ({ urlParams }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentApiKey
          const filter = yield* toFilter(urlParams)
          const page = urlParams.page ?? 1
          const limit = urlParams.limit ?? 20
          const result = yield* orApiError(ledger.listEntries(partnerId, filter, (page - 1) * limit, limit))
          return { items: result.items.map(transactionView), page, limit, total: result.total }
        })
      )
      .handle("export", ({ urlParams }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentApiKey
          const filter = yield* toFilter(urlParams)
          const now = yield* Clock.currentTimeMillis
          const body = csvExportStream(
            ledger.streamEntries(partnerId, filter, CSV_EXPORT_MAX_ROWS),
            ledger.countEntries(partnerId, filter)
          )
          const filename = `transactions-${iso(now).slice(0, 10)}.csv`
          return HttpServerResponse.stream(Stream.encodeText(Stream.orDie(body)), {
            contentType: "text/csv; charset=utf-8",
            headers: { "content-disposition": `attachment; filename="${filename}"` }
          })
        })
      )
      .handle("usageDaily", ({ urlParams }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentApiKey
          const now = yield* Clock.currentTimeMillis
          const filter = yield* toFilter(urlParams)
          // Default range: the last 30 UTC days including today.
          const untilMs = filter.untilMs ?? dayStart(now) + DAY_MS
          const fromMs = filter.fromMs ?? untilMs - 30 * DAY_MS
          if (untilMs - fromMs > MAX_USAGE_RANGE_DAYS * DAY_MS)
            return yield* Effect.fail(
              validationFailed([`the range from dateFrom to dateTo must not exceed ${MAX_USAGE_RANGE_DAYS} days`])
            )
          if (fromMs >= untilMs) return yield* Effect.fail(validationFailed(["dateFrom must be before dateTo"]))
          const sparse = yield* orApiError(ledger.usageByDay(partnerId, fromMs, untilMs))
          return dailyUsageView(sparse, fromMs, untilMs)
        })
      )
  })
)
