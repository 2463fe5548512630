// The baseline of bench/host-footprint: a bare node:http + pg server, plain JavaScript (no loader),
// with a /readyz that asks the database and GET /v1/billing/balance making the engine's queries
// (the same handler as bench/api-baseline-server.ts).
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import pg from "pg"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
const pepper = process.env.FRANK_KEY_PEPPER ?? ""

const balance = async (req, res) => {
  const hash = createHmac("sha256", pepper)
    .update(String(req.headers["x-api-key"] ?? ""))
    .digest("hex")
  const key = (await pool.query("SELECT partner_id, id, revoked_at FROM api_keys WHERE key_hash = $1", [hash])).rows[0]
  if (key === undefined || key.revoked_at !== null) return res.writeHead(401).end()
  const window = Math.floor(Date.now() / 60_000) * 60_000
  await pool.query(
    `INSERT INTO rate_limit_counters (key, window_start, window_end, count, limit_count)
     SELECT k, s, e, 1, l FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::int[]) AS t(k, s, e, l)
     ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
       WHERE rate_limit_counters.count < EXCLUDED.limit_count
     RETURNING key, count`,
    [[`key:${key.id}`], [window], [window + 60_000], [1_000_000_000]]
  )
  const acc = (
    await pool.query("SELECT total_minor, used_minor, reserved_minor FROM ledger_accounts WHERE partner_id = $1", [
      key.partner_id
    ])
  ).rows[0]
  const available = Number(acc?.total_minor ?? 0) - Number(acc?.used_minor ?? 0) - Number(acc?.reserved_minor ?? 0)
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ available: available / 100 }))
}

createServer(async (req, res) => {
  try {
    if (req.url === "/readyz") {
      await pool.query("SELECT 1")
      return res.writeHead(200).end('{"status":"ready"}')
    }
    await balance(req, res)
  } catch {
    res.writeHead(500).end()
  }
}).listen(Number(process.env.PORT), "127.0.0.1")
