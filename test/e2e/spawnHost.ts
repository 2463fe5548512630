/**
 * Spawns the real host process (embedded PGlite, random port, temporary data dir) the way an
 * operator starts it, and stops it at the end of the test file.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export interface RunningHost {
  readonly baseUrl: string
  readonly adminToken: string
  readonly dataDir: string
  readonly logs: () => string
  /** SIGTERM, wait for the exit code, then remove the data dir unless `keepData`. */
  readonly stop: (options?: { readonly keepData?: boolean }) => Promise<number | null>
  /** SIGKILL (a crash): the data dir stays for a restart. */
  readonly kill: () => Promise<void>
  readonly process: ChildProcess
}

export interface SpawnOptions {
  /** Start on an existing data dir (a restart after `kill` or `stop({ keepData: true })`). */
  readonly dataDir?: string
  /** Another way to start the host (node arguments and working directory), e.g. an installed bin. */
  readonly command?: { readonly args: ReadonlyArray<string>; readonly cwd: string }
}

const freePort = () =>
  new Promise<number>((done, fail) => {
    const s = createServer()
    s.once("error", fail)
    s.listen(0, "127.0.0.1", () => {
      const address = s.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      s.close(() => done(port))
    })
  })

const ROOT = resolve(import.meta.dirname, "../..")

export const spawnHost = async (env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<RunningHost> => {
  const port = await freePort()
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "frank-e2e-"))
  const adminToken = `e2e-admin-${port}`
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    FRANK_DATA_DIR: dataDir,
    FRANK_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: "info",
    ...env
  }
  if (env.DATABASE_URL === undefined) delete childEnv.DATABASE_URL
  const command = options.command ?? {
    args: ["--conditions=@frank/source", "--import", "tsx", "packages/host/src/main.ts"],
    cwd: ROOT
  }
  const child = spawn(process.execPath, command.args, {
    cwd: command.cwd,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let log = ""
  child.stdout?.on("data", (d) => {
    log += d
  })
  child.stderr?.on("data", (d) => {
    log += d
  })
  const baseUrl = `http://127.0.0.1:${port}`
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
  const deadline = performance.now() + 90_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`host exited early with ${child.exitCode}:\n${log}`)
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) break
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`host did not become ready:\n${log}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    baseUrl,
    adminToken,
    dataDir,
    logs: () => log,
    process: child,
    stop: async (stopOptions = {}) => {
      if (child.exitCode === null) child.kill("SIGTERM")
      const code = await exited
      if (stopOptions.keepData !== true) rmSync(dataDir, { recursive: true, force: true })
      return code
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      await exited
    }
  }
}

/** A small fetch wrapper returning status, parsed JSON (when any), text and headers. */
export const call = async (
  host: Pick<RunningHost, "baseUrl">,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {}
) => {
  const hasBody = options.body !== undefined || options.rawBody !== undefined
  const res = await fetch(host.baseUrl + path, {
    method,
    headers: { ...(hasBody ? { "content-type": "application/json" } : {}), ...options.headers },
    ...(hasBody ? { body: options.rawBody ?? JSON.stringify(options.body) } : {})
  })
  const text = await res.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response bodies
  return { status: res.status, json: json as any, text, headers: res.headers }
}
