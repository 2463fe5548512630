/**
 * `frank`: the operator CLI. It wraps the admin API over HTTP and runs migrations.
 * Exit codes: 0 success, 1 the server refused (its envelope on stderr), 2 usage or network error.
 */
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { type CliRequest, commands, UsageError } from "./commands.js"

const help = () =>
  [
    "frank — operator CLI of the Frank reference host",
    "",
    ...Object.values(commands).map((c) => `  ${c.usage}`),
    "  frank migrate                     apply database migrations (DATABASE_URL or the embedded database)",
    "",
    "Global options: --url <base url> (FRANK_PUBLIC_BASE_URL, default http://127.0.0.1:8080)",
    "                --token <admin token> (FRANK_ADMIN_TOKEN, else <FRANK_DATA_DIR>/admin-token)"
  ].join("\n")

const adminToken = (given: string | undefined): string => {
  if (given !== undefined) return given
  const fromEnv = process.env.FRANK_ADMIN_TOKEN
  if (fromEnv !== undefined && fromEnv.length > 0) return fromEnv
  try {
    return readFileSync(join(resolve(process.env.FRANK_DATA_DIR ?? "./.frank"), "admin-token"), "utf8").trim()
  } catch {
    throw new UsageError("no admin token: pass --token, set FRANK_ADMIN_TOKEN, or run next to the host's data directory")
  }
}

export const send = async (baseUrl: string, token: string, req: CliRequest) => {
  const res = await fetch(baseUrl.replace(/\/$/, "") + req.path, {
    method: req.method,
    headers: { authorization: `Bearer ${token}`, ...(req.body === undefined ? {} : { "content-type": "application/json" }) },
    ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) })
  })
  const text = await res.text()
  let pretty = text
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    // not JSON: print as is
  }
  return { status: res.status, ok: res.ok, pretty }
}

export const run = async (argv: ReadonlyArray<string>): Promise<number> => {
  const words = argv.filter((a) => !a.startsWith("-"))
  if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${help()}\n`)
    return 0
  }
  if (words[0] === "migrate") {
    const { runMigrationsCommand } = await import("../db/migrate.js")
    const applied = await runMigrationsCommand()
    process.stdout.write(applied.length === 0 ? "migrations: up to date\n" : `migrations applied: ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}\n`)
    return 0
  }
  const name = `${words[0] ?? ""} ${words[1] ?? ""}`
  const command = commands[name]
  if (command === undefined) {
    process.stderr.write(`unknown command: ${words.join(" ")}\n\n${help()}\n`)
    return 2
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { ...command.options, url: { type: "string" }, token: { type: "string" } }
    })
    const opts = values as Record<string, string | undefined>
    const request = command.request(opts, positionals.slice(2))
    const baseUrl = opts.url ?? process.env.FRANK_PUBLIC_BASE_URL ?? "http://127.0.0.1:8080"
    let answer: Awaited<ReturnType<typeof send>>
    try {
      answer = await send(baseUrl, adminToken(opts.token), request)
    } catch (e) {
      if (e instanceof UsageError) throw e
      process.stderr.write(`cannot reach the host at ${baseUrl}: ${e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e)}\n`)
      return 2
    }
    ;(answer.ok ? process.stdout : process.stderr).write(`${answer.pretty}\n`)
    return answer.ok ? 0 : 1
  } catch (e) {
    if (e instanceof UsageError || (e instanceof TypeError && "code" in e)) {
      process.stderr.write(`${e.message}\nusage: ${command.usage}\n`)
      return 2
    }
    throw e
  }
}
