import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import pg from "pg"
const db = await PGlite.create()
const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 8 })
await server.start()
const q = (server as any).queryQueue
const seq: string[] = []
const orig = q.enqueue.bind(q)
q.enqueue = (h: number, m: Uint8Array, cb: any) => { seq.push(`${h}${String.fromCharCode(m[0]!)}`); return orig(h, m, cb) }
const origRun = db.execProtocolRawStream.bind(db)
const processed: string[] = []
;(db as any).execProtocolRawStream = (m: Uint8Array, o: any) => { processed.push(String.fromCharCode(m[0]!)); return origRun(m, o) }
const port = Number(server.getServerConn().split(":").pop())
const pool = new pg.Pool({ host: "127.0.0.1", port, user: "postgres", database: "postgres", max: 8 })
let bad = 0
await Promise.all(Array.from({ length: 400 }, async (_, i) => {
  const r = await pool.query(i % 2 ? "SELECT $1::int AS x" : "SELECT $1::text AS x, 2 AS y", [i])
  if (String(r.rows[0].x) !== String(i)) bad++
}))
console.log("bad", bad)
// find interleavings: in processed-order, track handler sequences
const qq: string[] = []
console.log(seq.slice(0, 60).join(" "))
await pool.end(); await server.stop(); await db.close()
