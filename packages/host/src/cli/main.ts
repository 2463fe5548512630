/**
 * `frank`: the operator CLI. It wraps the admin API over HTTP, runs migrations and serves the host.
 * Exit codes: 0 done, 1 the host refused (its error envelope on stderr) or migrations failed,
 * 2 usage or network error.
 */
import { readFileSync } from "node:fs"
import type { Env, ReadFile } from "./globalOptions.js"
import { planInvocation } from "./plan.js"
import { HostUnreachable, prettyBody, send } from "./send.js"

/** Everything the CLI touches outside itself, so tests can run it in-process. */
export interface CliIo {
  readonly env: Env
  readonly readFile: ReadFile
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly fetch: typeof fetch
}

const readIfExists: ReadFile = (path) => {
  try {
    return readFileSync(path, "utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw e
  }
}

export const processIo = (): CliIo => ({
  env: process.env,
  readFile: readIfExists,
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  fetch: globalThis.fetch
})

const line = (text: string) => (text.endsWith("\n") ? text : `${text}\n`)

const migrate = async (io: CliIo): Promise<number> => {
  try {
    // Loaded only here: admin commands should not pay for the database stack at start-up.
    const { runMigrationsCommand } = await import("../db/migrate.js")
    const applied: unknown = await runMigrationsCommand()
    const names = Array.isArray(applied) ? applied.map((m) => (Array.isArray(m) ? `${m[0]}_${m[1]}` : String(m))) : []
    io.stdout(names.length === 0 ? "migrations: up to date\n" : `migrations applied: ${names.join(", ")}\n`)
    return 0
  } catch (e) {
    io.stderr(`migrations failed: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  }
}

export const run = async (argv: ReadonlyArray<string>, io: CliIo = processIo()): Promise<number> => {
  const plan = planInvocation(argv, io.env, io.readFile)
  switch (plan._tag) {
    case "Help":
      io.stdout(line(plan.text))
      return 0
    case "Usage":
      io.stderr(`frank: ${plan.message}\n\n${line(plan.help)}`)
      return 2
    case "Migrate":
      return migrate(io)
    case "Serve":
      // The host module starts serving when imported and ends the process itself on SIGTERM.
      await import("../main.js")
      return 0
    case "Request": {
      try {
        const answer = await send(plan, io.fetch)
        const body = prettyBody(answer.text)
        if (answer.ok) {
          if (body.length > 0) io.stdout(line(body))
          return 0
        }
        io.stderr(
          `frank: the host answered ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ""}\n${body.length > 0 ? line(body) : ""}`
        )
        return 1
      } catch (e) {
        if (e instanceof HostUnreachable) {
          io.stderr(`frank: ${e.message}\n`)
          return 2
        }
        throw e
      }
    }
  }
}
