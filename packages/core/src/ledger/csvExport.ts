/**
 * CSV export of ledger rows (spec "Ledger and usage"): RFC 4180 quoting by csv-stringify, a header
 * row, at most 10,000 rows, then `# truncated: <total count>` when more rows matched. Rows are
 * encoded as they stream from the store, so an export never sits whole in memory.
 */
import { stringify } from "csv-stringify/sync"
import { Effect, Stream } from "effect"
import { minorToFranks, MICROS_PER_FRANK } from "../internal/money.js"
import type { StoreError } from "../StoreError.js"
import type { LedgerEntry } from "./Entry.js"
import { iso } from "../isoTime.js"

/** The most entries one CSV export holds. */
export const CSV_EXPORT_MAX_ROWS = 10_000

export const CSV_COLUMNS = [
  "id",
  "occurredAt",
  "type",
  "kind",
  "amountFranks",
  "unitPriceFranks",
  "taskId",
  "attribution",
  "label",
  "description"
] as const

const csvRecord = (e: LedgerEntry): ReadonlyArray<string> => [
  e.id,
  iso(e.occurredAt),
  e.type,
  e.kind,
  String(minorToFranks(e.amountMinor)),
  e.unitPriceMicros === null ? "" : String(e.unitPriceMicros / MICROS_PER_FRANK),
  e.taskId ?? "",
  e.attribution ?? "",
  e.label,
  e.description
]

const encode = (records: ReadonlyArray<ReadonlyArray<string>>): string =>
  stringify(records as Array<Array<string>>, { record_delimiter: "\r\n" })

/**
 * The export as a stream of text chunks. `rows` must already be limited to `maxRows`; `countAll`
 * runs only when the limit was reached, to tell how many rows the export left out.
 */
export const csvExportStream = <E, R>(
  rows: Stream.Stream<LedgerEntry, E, R>,
  countAll: Effect.Effect<number, StoreError>,
  maxRows: number = CSV_EXPORT_MAX_ROWS
): Stream.Stream<string, E | StoreError, R> =>
  // Suspended so that each run of the stream counts its own rows.
  Stream.suspend(() => {
    let written = 0
    const header = Stream.succeed(encode([CSV_COLUMNS]))
    // The next page is read while this one is encoded: the store's round trip and the encoding
    // overlap instead of taking turns.
    const body = rows.pipe(
      Stream.bufferChunks({ capacity: 2 }),
      Stream.take(maxRows),
      Stream.grouped(500),
      Stream.map((chunk) => {
        written += chunk.length
        return encode(Array.from(chunk, csvRecord))
      })
    )
    const trailer = Stream.unwrap(
      Effect.suspend(() =>
        written < maxRows
          ? Effect.succeed(Stream.empty)
          : Effect.map(countAll, (total) =>
              total > written ? Stream.succeed(`# truncated: ${total}\r\n`) : Stream.empty
            )
      )
    )
    return Stream.concat(Stream.concat(header, body), trailer)
  })
