// Run in the lean install (@frank/core and @frank/adapters without their optional peers): the
// packages import, and each heavy feature fails, when used, with an error naming the package to
// install. Prints one line per feature, "<package>: <error message>", and exits 1 when a feature
// worked or failed for another reason.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeMediaProbe, PgliteDatabase } from "@frank/adapters"
import { Files, Pricing } from "@frank/core"
import { Cause, Effect, Exit, Layer } from "effect"

/** The message `effect` failed or died with (its first failure or defect). */
const failureOf = async (effect) => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return "it worked"
  const [error] = [...Cause.failures(exit.cause), ...Cause.defects(exit.cause)]
  return error instanceof Error ? error.message : String(error)
}

const spooled = join(mkdtempSync(join(tmpdir(), "frank-missing-")), "file.bin")
writeFileSync(spooled, "%PDF-1.4\n")
const media = { sizeBytes: 9, localPath: spooled }

const features = {
  "gpt-tokenizer": () => failureOf(Effect.promise(() => Pricing.loadTokenizer())),
  "@electric-sql/pglite": () => failureOf(Layer.build(PgliteDatabase.layer).pipe(Effect.scoped)),
  "file-type": () =>
    failureOf(Effect.flatMap(Files.MediaProbe, (p) => p.sniff(media)).pipe(Effect.provide(NodeMediaProbe.layer))),
  unpdf: () =>
    failureOf(
      Effect.flatMap(Files.MediaProbe, (p) => p.measure(media, { name: "PDF", measure: "pdf" })).pipe(
        Effect.provide(NodeMediaProbe.layer)
      )
    )
}

let failed = false
for (const [pkg, attempt] of Object.entries(features)) {
  const message = await attempt()
  console.log(`${pkg}: ${message}`)
  if (!message.includes(`needs the optional package ${pkg}: npm install ${pkg}`)) failed = true
}
process.exitCode = failed ? 1 : 0
