/**
 * PostgreSQL's side of bench/sustained split by statement, when the server preloads
 * pg_stat_statements (it needs a restart to, which the bench never does). The counters are reset
 * before a phase and read after it; they are server-wide, so the other trees' idle hosts (their
 * sweeps) are in them too, which is small beside a step's traffic. Execution time only: planning
 * is not tracked by default, and a function's inner statements count in its call.
 */
import pg from "pg"

/** Which part of the path a statement belongs to, by its text (a pure rule, unit-tested). */
export const statementPart = (query: string): string => {
  const q = query.replace(/\s+/g, " ").trim()
  if (/^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|START TRANSACTION)/i.test(q)) return "transaction control"
  if (/INSERT INTO webhook_events|webhook_append_event/i.test(q)) return "event insert + fan-out"
  if (/webhook_claim_due/i.test(q)) return "claim"
  if (/webhook_finish_attempts/i.test(q)) return "outcome write"
  if (/pg_notify|^NOTIFY/i.test(q)) return "NOTIFY"
  if (/idempotency/i.test(q)) return "idempotency"
  if (/rate_limit/i.test(q)) return "rate limit"
  if (/api_keys|partner_sessions/i.test(q)) return "authentication"
  if (/audit_log/i.test(q)) return "audit"
  if (/ledger_|payment/i.test(q)) return "ledger movement, payment"
  if (/webhook_/i.test(q)) return "webhooks, other"
  return "other"
}

/** Milliseconds of execution per part, summed over the statements of a phase. */
export type StatementTimes = ReadonlyMap<string, number>

export interface StatementSampler {
  readonly available: boolean
  readonly around: <A>(phase: () => Promise<A>) => Promise<{ result: A; times: StatementTimes | undefined }>
  readonly end: () => Promise<void>
}

const SCHEMA = "bench_statements"

/** A sampler over `url`; `available` is false (and `around` only runs the phase) without the preload. */
export const statementSampler = async (url: string, preloaded: string): Promise<StatementSampler> => {
  if (!preloaded.includes("pg_stat_statements"))
    return {
      available: false,
      around: async (phase) => ({ result: await phase(), times: undefined }),
      end: async () => {}
    }
  const client = new pg.Client({ connectionString: url, application_name: "bench-sustained-statements" })
  await client.connect()
  // Its own schema, so the extension's views never sit in `public` beside a project's tables.
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`)
  await client.query(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA ${SCHEMA}`)
  const read = async (): Promise<StatementTimes> => {
    const rows = await client.query<{ query: string; total: number }>(
      `SELECT query, total_exec_time AS total FROM ${SCHEMA}.pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`
    )
    const times = new Map<string, number>()
    for (const r of rows.rows) {
      if (r.query.includes(SCHEMA)) continue
      const part = statementPart(r.query)
      times.set(part, (times.get(part) ?? 0) + Number(r.total))
    }
    return times
  }
  return {
    available: true,
    around: async (phase) => {
      await client.query(`SELECT ${SCHEMA}.pg_stat_statements_reset()`)
      const result = await phase()
      return { result, times: await read() }
    },
    end: () => client.end()
  }
}
