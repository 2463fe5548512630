/**
 * gpt-tokenizer is an optional peer of core: a missing package fails with an error naming what to
 * install. The install suite (test/install) checks that only token-priced models need it, on a
 * project without it (here the setup file has loaded it for every test).
 */
import { describe, expect, it } from "@effect/vitest"
import { importOptional, MissingPackageError } from "../src/internal/optionalPackage.js"

describe("importOptional", () => {
  it("names the package to install when it is not installed", async () => {
    const error = await importOptional(
      "frank-no-such-package",
      "Doing X",
      () => import("frank-no-such-package" as string)
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MissingPackageError)
    expect((error as MissingPackageError).message).toBe(
      "Doing X needs the optional package frank-no-such-package: npm install frank-no-such-package"
    )
    expect((error as MissingPackageError).code).toBe("MISSING_OPTIONAL_PACKAGE")
  })

  it("passes any other failure through unchanged", async () => {
    const broken = new Error("the module threw while loading")
    const error = await importOptional("effect", "Doing X", () => Promise.reject(broken)).catch((e: unknown) => e)
    expect(error).toBe(broken)
  })

  it("returns the module when it is there", async () => {
    const m = await importOptional("effect", "Doing X", () => import("effect"))
    expect(typeof m.Effect.succeed).toBe("function")
  })
})
