/**
 * The CSV export at its real limit: 10,000 rows, then the truncation comment with the total.
 */
import { OutboxOnMemory, testPartner } from "@frank/core/testing"
import { MemoryLedgerStore } from "@frank/adapters"
import { Ids, Ledger } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"

layer(
  Ledger.Ledger.layer.pipe(
    Layer.provide(MemoryLedgerStore.layer),
    Layer.provide(OutboxOnMemory),
    Layer.provide(Ids.Ids.layerDeterministic("export"))
  )
)("CSV export limit", (it) => {
  it.effect("10,001 matching rows export 10,000 and end with # truncated: 10001", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger.Ledger
      for (let i = 0; i < Ledger.CSV_EXPORT_MAX_ROWS + 1; i++)
        yield* ledger.credit(testPartner("p"), { kind: "bonus", amountMinor: 1 })
      const chunks = yield* Stream.runCollect(
        Ledger.csvExportStream(
          ledger.streamEntries(testPartner("p"), {}, Ledger.CSV_EXPORT_MAX_ROWS),
          ledger.countEntries(testPartner("p"), {})
        )
      )
      const text = Array.from(chunks).join("")
      const lines = text.split("\r\n").filter((l) => l.length > 0)
      expect(lines[0]?.startsWith("id,occurredAt,")).toBe(true)
      expect(lines.filter((l) => l.includes(",bonus,"))).toHaveLength(Ledger.CSV_EXPORT_MAX_ROWS)
      expect(lines.at(-1)).toBe("# truncated: 10001")
      // Streamed in bounded chunks, not one string.
      expect(chunks.length).toBeGreaterThan(10)
    })
  )
})
