/**
 * The outcome write keeps its primary-key lookups whatever the size of the delivery table.
 *
 * Why: `webhook_finish_attempts` (migration 0008) joins the batch of outcomes, read from its JSON
 * parameter with `json_to_recordset`, to the deliveries. The planner takes that function for 100
 * rows, whatever the batch holds, and below some 20,000–40,000 deliveries it judged one sequential
 * scan of the table plus a hash join cheaper than 100 index lookups — and kept that generic plan.
 * So every outcome write of a young installation read the whole delivery table: 1.6 ms of a
 * 5.9 ms statement at 12,600 deliveries for a batch of 30, growing with the table until the plan
 * flipped (bench/webhooks-statements; docs/performance.md). A batch is at most 256 outcomes, each
 * found by primary key, so a sequential scan is never the right plan for this statement.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER FUNCTION webhook_finish_attempts(json, bigint) SET enable_seqscan = off`
})
