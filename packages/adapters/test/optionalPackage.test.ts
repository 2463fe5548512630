/**
 * The heavy features of adapters load optional peers on first use; a missing one fails with an
 * error naming the package to install. The install suite (test/install) checks the features
 * themselves on a project that has none of them.
 */
import { describe, expect, it } from "@effect/vitest"
import { importOptional, MissingPackageError, resolveOptional } from "../src/node/internal/optionalPackage.js"

const missing = "frank-no-such-package"

describe("optional packages", () => {
  it("importOptional names the package to install when it is not installed", async () => {
    const error = await importOptional(missing, "Doing X", () => import(missing as string)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MissingPackageError)
    expect((error as Error).message).toBe(`Doing X needs the optional package ${missing}: npm install ${missing}`)
  })

  it("resolveOptional does the same for a file of the package", () => {
    expect(() => resolveOptional(missing, "Doing Y", `${missing}/ttf/font.ttf`)).toThrow(
      new MissingPackageError(missing, "Doing Y")
    )
  })

  it("a file missing inside an installed package is not reported as a missing package", () => {
    const error = (() => {
      try {
        return resolveOptional("uplot", "The chart", "uplot/dist/no-such-file.js")
      } catch (e) {
        return e
      }
    })()
    expect(error).not.toBeInstanceOf(MissingPackageError)
    expect((error as { code?: string }).code).toBe("MODULE_NOT_FOUND")
  })

  it("resolves files of installed packages", () => {
    expect(resolveOptional("uplot", "The chart", "uplot/dist/uPlot.min.css")).toMatch(/uplot\/dist\/uPlot\.min\.css$/)
  })
})
