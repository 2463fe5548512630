/** Help texts, generated from the command table so they cannot drift from what is parsed. */
import { type CliCommand, type CliOption, commands } from "./commands.js"
import { GLOBAL_OPTIONS } from "./globalOptions.js"

const LOCAL_COMMANDS = {
  migrate: "apply the database migrations (DATABASE_URL, else the embedded database in FRANK_DATA_DIR) and exit",
  serve: "start the host (the same settings as `npm start`, from the environment) until SIGTERM"
} as const

const optionLines = (options: Readonly<Record<string, CliOption>>) => {
  const entries = Object.entries(options)
  const width = Math.max(0, ...entries.map(([name]) => name.length)) + 2
  return entries.map(
    ([name, o]) => `  --${name.padEnd(width)}${o.description}${o.required === true ? " (required)" : ""}`
  )
}

const EXIT_CODES = ["Exit codes: 0 done, 1 the host refused (its error envelope on stderr), 2 usage or network error."]

export const globalHelp = (): string =>
  [
    "frank — operator CLI of the Frank reference host (wraps the admin API, runs migrations)",
    "",
    "Commands:",
    ...Object.values(commands).map((c) => `  ${c.usage}\n      ${c.summary}`),
    ...Object.entries(LOCAL_COMMANDS).map(([name, summary]) => `  frank ${name}\n      ${summary}`),
    "",
    "Options of every admin command:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    "Answers are printed as JSON on stdout. `frank <command> --help` describes one command.",
    ...EXIT_CODES
  ].join("\n")

export const commandHelp = (command: CliCommand): string =>
  [
    `usage: ${command.usage}`,
    "",
    command.summary,
    ...(Object.keys(command.options).length > 0 ? ["", "Options:", ...optionLines(command.options)] : []),
    "",
    "Common options:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    ...EXIT_CODES
  ].join("\n")

/** Help of a command the CLI runs itself: `frank migrate`, `frank serve`. */
export const localHelp = (name: keyof typeof LOCAL_COMMANDS): string =>
  [`usage: frank ${name}`, "", LOCAL_COMMANDS[name]].join("\n")

/** `frank sandbox --help`: the commands starting with that word. */
export const groupHelp = (group: string): string | undefined => {
  const members = Object.entries(commands).filter(([name]) => name.startsWith(`${group} `))
  if (members.length === 0) return undefined
  return ["Commands:", ...members.map(([, c]) => `  ${c.usage}\n      ${c.summary}`)].join("\n")
}
