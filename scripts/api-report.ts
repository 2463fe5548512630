/**
 * The public surface of the published packages, one markdown file per entry point in etc/: every
 * name reachable from the entry (namespace members included) with its signature, so a change to
 * the surface is a diff in review. `npm run api:report` writes the files; test/api-report.test.ts
 * fails when they are stale, when a reachable name has no TSDoc, or when a package source holds a
 * bare `export * from` (Biome's noReExportAll would also refuse `export * as`, Effect's style).
 */
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** The entry points reported, with the report file and the most names each may expose. */
export const entries = [
  { name: "@frank/core", source: "packages/core/src/index.ts", report: "etc/core.api.md", limit: 300 },
  { name: "@frank/core/stores", source: "packages/core/src/stores/index.ts", report: "etc/core-stores.api.md" },
  { name: "@frank/core/http", source: "packages/core/src/http/index.ts", report: "etc/core-http.api.md" },
  { name: "@frank/core/testing", source: "packages/core/src/testing/index.ts", report: "etc/core-testing.api.md" },
  { name: "@frank/adapters", source: "packages/adapters/src/index.ts", report: "etc/adapters.api.md" }
] as const

/** TSDoc is required on these entries' names (adapters are reported, not yet documented). */
const documented = new Set(["@frank/core", "@frank/core/http", "@frank/core/stores", "@frank/core/testing"])

export interface ReportedName {
  readonly path: string
  readonly signature: string
  readonly documented: boolean
}

export interface EntryReport {
  readonly name: string
  readonly report: string
  readonly names: ReadonlyArray<ReportedName>
  readonly text: string
  readonly limit: number | undefined
  readonly requireDocs: boolean
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed })
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

const hasDoc = (declaration: ts.Declaration): boolean => {
  const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration
  return ts.getJSDocCommentsAndTags(node).some((doc) => ts.isJSDoc(doc))
}

/** A class shown as its heading and its members' types, without bodies. */
const classSignature = (checker: ts.TypeChecker, node: ts.ClassDeclaration, sf: ts.SourceFile): string => {
  const heading = sf.text.slice(node.getStart(sf), node.members.pos).replace(/\{\s*$/, "")
  const members = node.members.flatMap((member) => {
    const modifiers = ts.getCombinedModifierFlags(member as ts.Declaration)
    if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected) || !member.name) return []
    const symbol = checker.getSymbolAtLocation(member.name)
    if (!symbol) return []
    const type = checker.getTypeOfSymbolAtLocation(symbol, member)
    const isStatic = modifiers & ts.ModifierFlags.Static ? "static " : ""
    return [`${isStatic}${member.name.getText(sf)}: ${checker.typeToString(type, member)}`]
  })
  return oneLine(`${heading}{ ${members.join("; ")} }`)
}

const declarationSignature = (checker: ts.TypeChecker, declaration: ts.Declaration, symbol: ts.Symbol): string => {
  const sf = declaration.getSourceFile()
  if (ts.isClassDeclaration(declaration)) return classSignature(checker, declaration, sf)
  if (
    ts.isInterfaceDeclaration(declaration) ||
    ts.isTypeAliasDeclaration(declaration) ||
    ts.isEnumDeclaration(declaration)
  )
    return oneLine(printer.printNode(ts.EmitHint.Unspecified, declaration, sf))
  if (ts.isModuleDeclaration(declaration)) return `namespace ${symbol.name}`
  const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
  const keyword = ts.isFunctionDeclaration(declaration) ? "function" : "const"
  return oneLine(`${keyword} ${symbol.name}: ${checker.typeToString(type, declaration)}`)
}

const resolve = (checker: ts.TypeChecker, symbol: ts.Symbol) =>
  symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol

const isNamespace = (symbol: ts.Symbol) =>
  (symbol.flags & ts.SymbolFlags.ValueModule) !== 0 && symbol.declarations?.some(ts.isSourceFile) === true

const collect = (
  checker: ts.TypeChecker,
  module: ts.Symbol,
  prefix: string,
  out: Array<ReportedName>,
  viaDoc = false
) => {
  for (const exported of checker.getExportsOfModule(module)) {
    const target = resolve(checker, exported)
    const name = prefix + exported.name
    if (isNamespace(target)) {
      // A namespace is documented by the comment on its `export * as` line.
      const line = exported.declarations?.[0]
      const doc = line !== undefined && ts.getJSDocCommentsAndTags(line.parent ?? line).length > 0
      out.push({ path: name, signature: `namespace ${name}`, documented: doc || viaDoc })
      collect(checker, target, `${name}.`, out)
      continue
    }
    const declarations = target.declarations ?? []
    out.push({
      path: name,
      signature: declarations.map((d) => declarationSignature(checker, d, target)).join("\n  "),
      documented: declarations.some(hasDoc)
    })
  }
}

/** Builds every entry's report from the sources (one program for all entries). */
export const buildReports = (): ReadonlyArray<EntryReport> => {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {}
    }
  )
  if (!config) throw new Error("api-report: cannot read tsconfig.json")
  const program = ts.createProgram(
    entries.map((e) => path.join(root, e.source)),
    config.options
  )
  const checker = program.getTypeChecker()
  return entries.map((entry) => {
    const sf = program.getSourceFile(path.join(root, entry.source))
    const module = sf && checker.getSymbolAtLocation(sf)
    if (!module) throw new Error(`api-report: ${entry.source} is not a module`)
    const names: Array<ReportedName> = []
    collect(checker, module, "", names)
    names.sort((a, b) => a.path.localeCompare(b.path))
    const lines = [
      `# ${entry.name}: public API`,
      "",
      "<!-- Generated by `npm run api:report` (scripts/api-report.ts). Do not edit by hand. -->",
      "",
      `${names.length} names reachable from the entry point (namespace members counted).`,
      "",
      ...names.flatMap((n) => [`- \`${n.path}\``, "  ```ts", `  ${n.signature}`, "  ```"]),
      ""
    ]
    return {
      name: entry.name,
      report: entry.report,
      names,
      text: lines.join("\n"),
      limit: "limit" in entry ? entry.limit : undefined,
      requireDocs: documented.has(entry.name)
    }
  })
}

/** Package sources holding a bare `export * from` (`export * as X from` is allowed). */
export const bareReExports = (): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (/\.m?ts$/.test(entry.name)) {
        const sf = ts.createSourceFile(full, fs.readFileSync(full, "utf8"), ts.ScriptTarget.Latest)
        for (const st of sf.statements)
          if (ts.isExportDeclaration(st) && st.exportClause === undefined) {
            const { line } = sf.getLineAndCharacterOfPosition(st.getStart(sf))
            found.push(`${path.relative(root, full)}:${line + 1}`)
          }
      }
    }
  }
  for (const pkg of fs.readdirSync(path.join(root, "packages"))) {
    const src = path.join(root, "packages", pkg, "src")
    if (fs.existsSync(src)) walk(src)
  }
  return found
}

export const reportPath = (report: string) => path.join(root, report)

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  fs.mkdirSync(path.join(root, "etc"), { recursive: true })
  for (const entry of buildReports()) {
    fs.writeFileSync(reportPath(entry.report), entry.text)
    const undocumented = entry.names.filter((n) => !n.documented).length
    console.log(`${entry.report}: ${entry.names.length} names, ${undocumented} without TSDoc`)
  }
}
