/**
 * PDF page count with unpdf (pdf.js, script evaluation off). A PDF that needs a user password is
 * reported as such; anything pdf.js cannot open is damaged. The file is at most 20 MiB.
 */
import { readFile } from "node:fs/promises"
import type { getDocumentProxy } from "unpdf"
import { importOptional } from "../../node/internal/optionalPackage.js"

export type PdfResult =
  | { readonly _tag: "Pages"; readonly pageCount: number }
  | { readonly _tag: "Encrypted" }
  | { readonly _tag: "Unreadable"; readonly reason: string }

export const measurePdf = async (path: string): Promise<PdfResult> => {
  const data = new Uint8Array(await readFile(path))
  // pdf.js loads on the first PDF import, not at start.
  const { getDocumentProxy } = await importOptional("unpdf", "Counting PDF pages", () => import("unpdf"))
  let document: Awaited<ReturnType<typeof getDocumentProxy>>
  try {
    document = await getDocumentProxy(data, { isEvalSupported: false, verbosity: 0, stopAtErrors: false })
  } catch (error) {
    if (error instanceof Error && error.name === "PasswordException") return { _tag: "Encrypted" }
    return { _tag: "Unreadable", reason: error instanceof Error ? error.message : String(error) }
  }
  try {
    return { _tag: "Pages", pageCount: document.numPages }
  } finally {
    await document.destroy()
  }
}
