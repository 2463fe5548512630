/**
 * From argv to what the CLI will do, without doing it: show help, run migrations, or send one
 * HTTP request (method, URL, headers, body). Pure apart from the injected file read, so every
 * command's request is testable without a server.
 */
import { type ParseArgsConfig, parseArgs } from "node:util"
import { type CliOption, commands, UsageError } from "./commands.js"
import {
  type Env,
  GLOBAL_OPTIONS,
  type ReadFile,
  resolveBaseUrl,
  resolveTimeoutMs,
  resolveToken
} from "./globalOptions.js"
import { commandHelp, globalHelp, groupHelp, localHelp } from "./help.js"

export interface HttpPlan {
  readonly _tag: "Request"
  readonly command: string
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  readonly timeoutMs: number
}

export type CliPlan =
  | { readonly _tag: "Help"; readonly text: string }
  | { readonly _tag: "Usage"; readonly message: string; readonly help: string }
  | { readonly _tag: "Migrate" }
  | { readonly _tag: "Serve" }
  | HttpPlan

// Every option any command knows, so one strict parse reports unknown flags wherever they stand
// (`frank --url x partners create` works as well as `frank partners create --url x`).
const ALL_OPTIONS: Record<string, CliOption> = Object.assign(
  {},
  GLOBAL_OPTIONS,
  ...Object.values(commands).map((c) => c.options)
)
const PARSE_OPTIONS: ParseArgsConfig["options"] = {
  ...Object.fromEntries(Object.keys(ALL_OPTIONS).map((name) => [name, { type: "string" as const }])),
  help: { type: "boolean", short: "h" }
}

const SEE_HELP = "Run frank --help for the commands and their options."

/** parseArgs reports bad command lines as TypeErrors with an ERR_PARSE_ARGS_* code. */
const isParseArgsError = (e: unknown): e is Error =>
  e instanceof Error && String((e as Error & { code?: unknown }).code).startsWith("ERR_PARSE_ARGS")

export const planInvocation = (argv: ReadonlyArray<string>, env: Env, readFile: ReadFile): CliPlan => {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof PARSE_OPTIONS; allowPositionals: true; strict: true; tokens: true }>
  >
  try {
    parsed = parseArgs({ args: [...argv], options: PARSE_OPTIONS, allowPositionals: true, strict: true, tokens: true })
  } catch (e) {
    if (isParseArgsError(e)) return { _tag: "Usage", message: e.message, help: SEE_HELP }
    throw e
  }
  const values = parsed.values as Record<string, string | boolean | undefined>
  const help = values.help === true
  let words = parsed.positionals
  // `frank help credits add` reads like `frank credits add --help`.
  const helpWord = words[0] === "help"
  if (helpWord) words = words.slice(1)
  const wantsHelp = help || helpWord
  const given = parsed.tokens.flatMap((t) => (t.kind === "option" && t.name !== "help" ? [t.name] : []))

  if (words.length === 0)
    return wantsHelp
      ? { _tag: "Help", text: globalHelp() }
      : { _tag: "Usage", message: "no command given", help: globalHelp() }

  // Commands run in this process (no admin API round trip) and take no options.
  if (words[0] === "migrate" || words[0] === "serve") {
    const help = localHelp(words[0])
    if (wantsHelp) return { _tag: "Help", text: help }
    if (words.length > 1) return { _tag: "Usage", message: `unexpected argument "${words[1]}"`, help }
    if (given.length > 0) return { _tag: "Usage", message: `--${given[0]} is not an option of frank ${words[0]}`, help }
    return { _tag: words[0] === "migrate" ? "Migrate" : "Serve" }
  }

  const name = `${words[0]} ${words[1] ?? ""}`
  const command = commands[name]
  if (command === undefined) {
    const group = groupHelp(words[0] ?? "")
    if (wantsHelp && words.length === 1 && group !== undefined) return { _tag: "Help", text: group }
    return { _tag: "Usage", message: `unknown command: frank ${words.join(" ")}`, help: group ?? globalHelp() }
  }
  if (wantsHelp) return { _tag: "Help", text: commandHelp(command) }

  const usage = (message: string): CliPlan => ({
    _tag: "Usage",
    message,
    help: `usage: ${command.usage}\n(frank ${name} --help for details)`
  })
  const foreign = given.find((o) => !(o in command.options) && !(o in GLOBAL_OPTIONS))
  if (foreign !== undefined) return usage(`--${foreign} is not an option of frank ${name}`)
  const rest = words.slice(2)
  if (rest.length > (command.positionals ?? 0)) return usage(`unexpected argument "${rest[command.positionals ?? 0]}"`)

  try {
    const options = values as Record<string, string | undefined>
    const request = command.request(options, rest)
    const body = request.body === undefined ? undefined : JSON.stringify(request.body)
    return {
      _tag: "Request",
      command: name,
      method: request.method,
      url: resolveBaseUrl(options.url, env) + request.path,
      headers: {
        authorization: `Bearer ${resolveToken(options.token, env, readFile)}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body }),
      timeoutMs: resolveTimeoutMs(options.timeout)
    }
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message)
    throw e
  }
}
