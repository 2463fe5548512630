/**
 * The operator CLI: argv → request for every command (method, URL, headers, body), the help and
 * usage paths, real round trips over HTTP with exit codes, and the `frank` bin (tsx) including
 * `frank migrate` on an embedded database.
 */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { commands, UsageError } from "../src/cli/commands.js"
import type { Env } from "../src/cli/globalOptions.js"
import { type CliIo, run } from "../src/cli/main.js"
import { type CliPlan, type HttpPlan, planInvocation } from "../src/cli/plan.js"

const BIN = resolve(import.meta.dirname, "../bin/frank.mjs")
const noFiles = () => undefined

const plan = (
  argv: ReadonlyArray<string>,
  env: Env = { FRANK_ADMIN_TOKEN: "tok" },
  files: Record<string, string> = {}
): CliPlan => planInvocation(argv, env, (path) => files[path])

const request = (argv: ReadonlyArray<string>, env?: Env): HttpPlan => {
  const p = plan(argv, env)
  if (p._tag !== "Request") throw new Error(`expected a request, got ${JSON.stringify(p)}`)
  return p
}

const usage = (argv: ReadonlyArray<string>, env?: Env): string => {
  const p = plan(argv, env)
  if (p._tag !== "Usage") throw new Error(`expected a usage error, got ${JSON.stringify(p)}`)
  return p.message
}

const JSON_HEADERS = { authorization: "Bearer tok", accept: "application/json", "content-type": "application/json" }
const BASE = "http://127.0.0.1:8080"

describe("frank: argv → request", () => {
  it("partners create", () => {
    expect(request(["partners", "create", "--name", "Acme LLC"])).toEqual({
      _tag: "Request",
      command: "partners create",
      method: "POST",
      url: `${BASE}/admin/v1/partners`,
      headers: JSON_HEADERS,
      body: JSON.stringify({ name: "Acme LLC" }),
      timeoutMs: 30_000
    })
    expect(usage(["partners", "create"])).toBe("--name is required")
  })

  it("sessions create, with and without --ttl; ids are percent-encoded", () => {
    const r = request(["sessions", "create", "--partner", "p/1", "--ttl", "600"])
    expect([r.method, r.url, r.body]).toEqual([
      "POST",
      `${BASE}/admin/v1/partners/p%2F1/sessions`,
      JSON.stringify({ ttlSeconds: 600 })
    ])
    expect(request(["sessions", "create", "--partner", "p1"]).body).toBe("{}")
    expect(usage(["sessions", "create", "--partner", "p1", "--ttl", "1.5"])).toMatch(/--ttl must be a whole number/)
  })

  it("credits add, with description and a negative adjustment", () => {
    const r = request([
      "credits",
      "add",
      "--partner",
      "p1",
      "--amount",
      "12.5",
      "--kind",
      "bonus",
      "--description",
      "welcome"
    ])
    expect([r.method, r.url, r.headers]).toEqual(["POST", `${BASE}/admin/v1/partners/p1/credits`, JSON_HEADERS])
    expect(JSON.parse(r.body!)).toEqual({ amountFranks: 12.5, kind: "bonus", description: "welcome" })
    expect(
      JSON.parse(request(["credits", "add", "--partner", "p1", "--amount=-5", "--kind", "adjustment"]).body!)
    ).toEqual({
      amountFranks: -5,
      kind: "adjustment"
    })
    expect(usage(["credits", "add", "--partner", "p1", "--amount", "ten", "--kind", "bonus"])).toMatch(
      /--amount must be a number/
    )
    expect(usage(["credits", "add", "--partner", "p1", "--amount", "1", "--kind", "gift"])).toMatch(
      /--kind must be one of bonus, adjustment/
    )
  })

  it("tariff set", () => {
    const r = request(["tariff", "set", "--partner", "p1", "--plan", "pro"])
    expect([r.method, r.url, r.body]).toEqual([
      "PUT",
      `${BASE}/admin/v1/partners/p1/tariff`,
      JSON.stringify({ assignedPlan: "pro" })
    ])
    expect(usage(["tariff", "set", "--partner", "p1", "--plan", "gold"])).toMatch(
      /--plan must be one of base, pro, max, ultra/
    )
  })

  it("legacy-keys create sends no body and no content-type", () => {
    const r = request(["legacy-keys", "create", "--partner", "p1"])
    expect([r.method, r.url, r.body, r.headers]).toEqual([
      "POST",
      `${BASE}/admin/v1/partners/p1/legacy-keys`,
      undefined,
      { authorization: "Bearer tok", accept: "application/json" }
    ])
  })

  it("sandbox payments, invoices and tasks: every action, and refusals", () => {
    const actions = {
      payments: ["confirm", "reject", "cancel", "fail"],
      invoices: ["pay", "cancel"],
      tasks: ["succeed", "fail"]
    }
    for (const [kind, list] of Object.entries(actions))
      for (const action of list) {
        const r = request(["sandbox", kind, "id 1", action])
        expect([r.method, r.url, r.body]).toEqual([
          "POST",
          `${BASE}/admin/v1/sandbox/${kind}/id%201/${action}`,
          undefined
        ])
      }
    expect(usage(["sandbox", "invoices", "i1", "explode"])).toMatch(/unknown action "explode"/)
    expect(usage(["sandbox", "tasks", "t1"])).toMatch(/expected <id>/)
    expect(usage(["sandbox", "tasks", "t1", "fail", "extra"])).toMatch(/unexpected argument "extra"/)
  })

  it("clock advance", () => {
    expect(request(["clock", "advance", "--seconds", "3600"]).body).toBe(JSON.stringify({ seconds: 3600 }))
  })

  it("migrate runs locally and takes no admin options", () => {
    expect(plan(["migrate"])).toEqual({ _tag: "Migrate" })
    expect(usage(["migrate", "--url", "http://x"])).toMatch(/--url is not an option of frank migrate/)
  })

  it("serve runs locally and takes no arguments", () => {
    expect(plan(["serve"])).toEqual({ _tag: "Serve" })
    expect(usage(["serve", "now"])).toMatch(/unexpected argument "now"/)
    expect(usage(["serve", "--token", "t"])).toMatch(/--token is not an option of frank serve/)
  })

  it("the command table builds the same requests without argv", () => {
    expect(commands["tariff set"]!.request({ partner: "p", plan: "max" }, [])).toEqual({
      method: "PUT",
      path: "/admin/v1/partners/p/tariff",
      body: { assignedPlan: "max" }
    })
    expect(() => commands["partners create"]!.request({}, [])).toThrow(UsageError)
  })
})

describe("frank: token, URL and option handling", () => {
  it("token: --token, else FRANK_ADMIN_TOKEN, else <FRANK_DATA_DIR>/admin-token", () => {
    const argv = ["legacy-keys", "create", "--partner", "p"]
    const files = { [join(resolve("/srv/frank"), "admin-token")]: "from-file\n" }
    const auth = (extra: ReadonlyArray<string>, env: Env) => {
      const p = plan([...argv, ...extra], env, files)
      return p._tag === "Request" ? p.headers.authorization : p._tag
    }
    expect(auth(["--token", "flag"], { FRANK_ADMIN_TOKEN: "env", FRANK_DATA_DIR: "/srv/frank" })).toBe("Bearer flag")
    expect(auth([], { FRANK_ADMIN_TOKEN: "env", FRANK_DATA_DIR: "/srv/frank" })).toBe("Bearer env")
    expect(auth([], { FRANK_ADMIN_TOKEN: "", FRANK_DATA_DIR: "/srv/frank" })).toBe("Bearer from-file")
    const missing = plan(argv, { FRANK_DATA_DIR: "/nowhere" })
    expect(missing._tag === "Usage" && missing.message).toMatch(/no admin token.*\/nowhere\/admin-token/)
  })

  it("URL: --url, else FRANK_PUBLIC_BASE_URL, else http://HOST:PORT (127.0.0.1:8080); must be http(s)", () => {
    const url = (extra: ReadonlyArray<string>, env: Env) =>
      request(["partners", "create", "--name", "n", ...extra], { FRANK_ADMIN_TOKEN: "t", ...env }).url
    expect(url(["--url", "https://a.example/"], { FRANK_PUBLIC_BASE_URL: "https://b.example" })).toBe(
      "https://a.example/admin/v1/partners"
    )
    expect(url([], { FRANK_PUBLIC_BASE_URL: "https://b.example/base/" })).toBe(
      "https://b.example/base/admin/v1/partners"
    )
    expect(url([], {})).toBe(`${BASE}/admin/v1/partners`)
    // Without a public URL, where a host started from the same environment listens.
    expect(url([], { PORT: "9090" })).toBe("http://127.0.0.1:9090/admin/v1/partners")
    expect(url([], { HOST: "10.1.2.3", PORT: "9090" })).toBe("http://10.1.2.3:9090/admin/v1/partners")
    expect(url([], { HOST: "0.0.0.0" })).toBe("http://127.0.0.1:8080/admin/v1/partners")
    expect(url([], { HOST: "::", PORT: "9090" })).toBe("http://[::1]:9090/admin/v1/partners")
    expect(url([], { HOST: "::1", PORT: "9090" })).toBe("http://[::1]:9090/admin/v1/partners")
    expect(url([], { FRANK_PUBLIC_BASE_URL: "https://b.example", PORT: "9090" })).toBe(
      "https://b.example/admin/v1/partners"
    )
    for (const port of ["http", "99999", "0"])
      expect(usage(["partners", "create", "--name", "n"], { FRANK_ADMIN_TOKEN: "t", PORT: port }), port).toMatch(
        /PORT must be a port number/
      )
    expect(usage(["partners", "create", "--name", "n", "--url", "ftp://x"])).toMatch(/not an http\(s\) URL/)
  })

  it("common options may come before the command; --timeout is in seconds", () => {
    const r = request(["--url", "http://h:1", "--timeout", "2.5", "partners", "create", "--name", "n"])
    expect([r.url, r.timeoutMs]).toEqual(["http://h:1/admin/v1/partners", 2500])
    expect(usage(["partners", "create", "--name", "n", "--timeout", "0"])).toMatch(
      /--timeout must be a positive number/
    )
  })

  it("unknown commands and options, and options of another command, are usage errors", () => {
    expect(usage(["partners", "delete"])).toBe("unknown command: frank partners delete")
    expect(usage(["partners", "create", "--name", "n", "--bogus", "1"])).toMatch(/Unknown option '--bogus'/)
    expect(usage(["partners", "create", "--name", "n", "--plan", "pro"])).toBe(
      "--plan is not an option of frank partners create"
    )
    expect(usage([])).toBe("no command given")
  })

  it("help: global, per command, per group, and `frank help <command>`", () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) {
      const p = plan(argv)
      expect(p._tag === "Help" && p.text).toMatch(/frank partners create --name <name>[\s\S]*frank migrate/)
    }
    const command = plan(["credits", "add", "--help"])
    expect(command._tag === "Help" && command.text).toMatch(
      /^usage: frank credits add[\s\S]*--kind\s+bonus or adjustment \(required\)/
    )
    expect(plan(["help", "credits", "add"])).toEqual(command)
    const group = plan(["sandbox", "--help"])
    expect(group._tag === "Help" && group.text).toContain("frank sandbox invoices <id> pay|cancel")
    expect(plan(["migrate", "--help"])._tag).toBe("Help")
    // Help never needs a token.
    expect(planInvocation(["tariff", "set", "--help"], {}, noFiles)._tag).toBe("Help")
  })
})

/** The CLI in-process with captured output and the real fetch. */
const cli = (env: Env = {}) => {
  let stdout = ""
  let stderr = ""
  const io: CliIo = {
    env,
    readFile: (path) => {
      try {
        return readFileSync(path, "utf8")
      } catch {
        return undefined
      }
    },
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
    fetch: globalThis.fetch
  }
  return { run: (argv: ReadonlyArray<string>) => run(argv, io), out: () => stdout, err: () => stderr }
}

interface Seen {
  readonly method: string
  readonly url: string
  readonly auth: string | undefined
  readonly contentType: string | undefined
  readonly body: string
}

const servers: Array<Server> = []
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    s.close()
  }
})

const serve = async (answer: (seen: Seen, res: ServerResponse) => void) => {
  const seen: Array<Seen> = []
  const server = createServer((req: IncomingMessage, res) => {
    let body = ""
    req.on("data", (d) => {
      body += d
    })
    req.on("end", () => {
      const s = {
        method: req.method ?? "",
        url: req.url ?? "",
        auth: req.headers.authorization,
        contentType: req.headers["content-type"],
        body
      }
      seen.push(s)
      answer(s, res)
    })
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

describe("frank: round trips", () => {
  it("sends method, path, bearer token and JSON body; prints the answer pretty; exit 0", async () => {
    const host = await serve((_s, res) => json(res, 201, { id: "p1", name: "Acme", createdAt: "2026-01-01T00:00:00Z" }))
    const c = cli()
    expect(await c.run(["partners", "create", "--name", "Acme", "--url", host.url, "--token", "tok"])).toBe(0)
    expect(host.seen).toEqual([
      {
        method: "POST",
        url: "/admin/v1/partners",
        auth: "Bearer tok",
        contentType: "application/json",
        body: '{"name":"Acme"}'
      }
    ])
    expect(c.out()).toBe(`${JSON.stringify({ id: "p1", name: "Acme", createdAt: "2026-01-01T00:00:00Z" }, null, 2)}\n`)
    expect(c.err()).toBe("")
  })

  it("a 4xx prints the error envelope on stderr and exits 1", async () => {
    const envelope = { statusCode: 404, code: "PARTNER_NOT_FOUND", message: "no partner p9" }
    const host = await serve((_s, res) => json(res, 404, envelope))
    const c = cli({ FRANK_PUBLIC_BASE_URL: "" })
    expect(
      await c.run([
        "credits",
        "add",
        "--partner",
        "p9",
        "--amount",
        "5",
        "--kind",
        "bonus",
        "--url",
        host.url,
        "--token",
        "tok"
      ])
    ).toBe(1)
    expect(host.seen[0]).toMatchObject({
      method: "POST",
      url: "/admin/v1/partners/p9/credits",
      auth: "Bearer tok",
      body: '{"amountFranks":5,"kind":"bonus"}'
    })
    expect(c.out()).toBe("")
    expect(c.err()).toContain("the host answered 404")
    expect(c.err()).toContain(JSON.stringify(envelope, null, 2))
  })

  it("finds the URL and the token in the environment and the data directory", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "frank-cli-token-"))
    try {
      writeFileSync(join(dataDir, "admin-token"), "stored-token\n", { mode: 0o600 })
      const host = await serve((_s, res) => {
        res.writeHead(200)
        res.end()
      })
      const c = cli({ FRANK_PUBLIC_BASE_URL: host.url, FRANK_DATA_DIR: dataDir })
      expect(await c.run(["sandbox", "payments", "pay_1", "confirm"])).toBe(0)
      expect(host.seen).toEqual([
        {
          method: "POST",
          url: "/admin/v1/sandbox/payments/pay_1/confirm",
          auth: "Bearer stored-token",
          contentType: undefined,
          body: ""
        }
      ])
      expect(c.out()).toBe("")
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("a host that is not there, or does not answer in time, is exit 2 with a clear message", async () => {
    const closed = await serve(() => {})
    const port = new URL(closed.url).port
    await new Promise<void>((r) => servers.pop()!.close(() => r()))
    const refused = cli()
    expect(
      await refused.run(["partners", "create", "--name", "x", "--url", `http://127.0.0.1:${port}`, "--token", "t"])
    ).toBe(2)
    expect(refused.err()).toMatch(/cannot reach the host at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/)

    const silent = await serve(() => {}) // never answers
    const slow = cli()
    expect(
      await slow.run(["partners", "create", "--name", "x", "--url", silent.url, "--token", "t", "--timeout", "0.2"])
    ).toBe(2)
    expect(slow.err()).toContain("no answer in time")
  })

  it("usage errors exit 2 without contacting anyone", async () => {
    const c = cli({ FRANK_ADMIN_TOKEN: "t" })
    expect(await c.run(["partners", "create"])).toBe(2)
    expect(c.err()).toMatch(/^frank: --name is required\n\nusage: frank partners create --name <name>/)
  })
})

/**
 * Runs the bin as a child process without blocking this worker's event loop (a synchronous spawn
 * of a minute starves vitest's RPC with its worker, which then reports a timeout).
 */
const runBin = async (args: ReadonlyArray<string>, options: { env?: NodeJS.ProcessEnv; cwd?: string }) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--conditions=@frank/source", BIN, ...args],
      { ...options, encoding: "utf8", timeout: 120_000 }
    )
    return { status: 0, stdout, stderr }
  } catch (e) {
    const failed = e as { code?: number; stdout?: string; stderr?: string }
    return { status: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? String(e) }
  }
}

describe("frank bin (tsx)", () => {
  it("frank --help runs through bin/frank.mjs", async () => {
    const r = await runBin(["--help"], { cwd: tmpdir() })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain("frank partners create --name <name>")
  })

  it("frank migrate applies the migrations to the embedded database, then reports it up to date", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "frank-cli-"))
    const env: Record<string, string | undefined> = { ...process.env, FRANK_DATA_DIR: dataDir }
    delete env.DATABASE_URL
    try {
      const first = await runBin(["migrate"], { env })
      expect(first.status, first.stderr).toBe(0)
      expect(first.stdout).toMatch(/^migrations applied: 1_ledger, 2_access/)
      const second = await runBin(["migrate"], { env })
      expect(second.status, second.stderr).toBe(0)
      expect(second.stdout).toContain("migrations: up to date")
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
    // Two processes start the TypeScript sources and PGlite: over a minute on a loaded 2-core machine.
  }, 180_000)
})
