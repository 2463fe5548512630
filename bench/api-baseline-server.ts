/**
 * The baseline of bench/api: a bare node:http + pg handler answering GET /v1/billing/balance with
 * the same queries the engine makes (key lookup by keyed hash, rate-limit counters, balance), and
 * none of the rest (no framework, no schema encoding, no logging).
 */
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import pg from "pg"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 })
const pepper = process.env.FRANK_KEY_PEPPER ?? ""
const port = Number(process.env.PORT)

createServer(async (req, res) => {
  try {
    const raw = String(req.headers["x-api-key"] ?? "")
    const hash = createHmac("sha256", pepper).update(raw).digest("hex")
    const key = (
      await pool.query(
        "SELECT partner_id, id, revoked_at, expires_at, last_used_at FROM api_keys WHERE key_hash = $1",
        [hash]
      )
    ).rows[0]
    if (key === undefined || key.revoked_at !== null) {
      res.writeHead(401).end()
      return
    }
    const now = Date.now()
    const window = Math.floor(now / 60_000) * 60_000
    const keys = [`ip:${req.socket.remoteAddress}:GET /v1/billing/balance`, `key:${key.id}`].sort()
    await pool.query(
      `INSERT INTO rate_limit_counters (key, window_start, window_end, count, limit_count)
       SELECT k, s, e, 1, l FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::int[]) AS t(k, s, e, l)
       ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
         WHERE rate_limit_counters.count < EXCLUDED.limit_count
       RETURNING key, count`,
      [keys, [window, window], [window + 60_000, window + 60_000], [1_000_000_000, 1_000_000_000]]
    )
    const acc = (
      await pool.query("SELECT total_minor, used_minor, reserved_minor FROM ledger_accounts WHERE partner_id = $1", [
        key.partner_id
      ])
    ).rows[0]
    // The next expiries of bonus grants (issue 32), as the engine's balance reads them.
    const expiring = (
      await pool.query(
        `SELECT id, remaining_minor, expires_at FROM ledger_credit_grants
         WHERE partner_id = $1 AND remaining_minor > 0 AND expired_at IS NULL AND expires_at IS NOT NULL
         ORDER BY expires_at, id LIMIT 5`,
        [key.partner_id]
      )
    ).rows.map((g) => ({
      amountFranks: Number(g.remaining_minor) / 100,
      expiresAt: new Date(Number(g.expires_at)).toISOString(),
      grantId: g.id
    }))
    const total = Number(acc?.total_minor ?? 0)
    const used = Number(acc?.used_minor ?? 0)
    const reserved = Number(acc?.reserved_minor ?? 0)
    const available = Math.max(0, total - used - reserved)
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        total: total / 100,
        used: used / 100,
        reserved: reserved / 100,
        available: available / 100,
        isLow: available < 100_000,
        lowBalanceThresholdFranks: 1000,
        expiring
      })
    )
  } catch {
    res.writeHead(500).end()
  }
}).listen(port, "127.0.0.1", () => console.log("baseline listening"))
