/**
 * TXT and MD must be valid UTF-8 without NUL bytes: streamed through a fatal decoder, so a 20 MiB
 * file is checked in 64 KiB steps and a sequence split across chunks is still judged whole.
 */
import { createReadStream } from "node:fs"

export type TextVerdict = { readonly _tag: "Valid" } | { readonly _tag: "Invalid"; readonly reason: string }

export const checkUtf8Text = async (path: string): Promise<TextVerdict> => {
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let offset = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    const nul = chunk.indexOf(0)
    if (nul >= 0) return { _tag: "Invalid", reason: `it contains a NUL byte at offset ${offset + nul}` }
    try {
      decoder.decode(chunk, { stream: true })
    } catch {
      return { _tag: "Invalid", reason: `it is not valid UTF-8 (near offset ${offset})` }
    }
    offset += chunk.length
  }
  try {
    decoder.decode()
  } catch {
    return { _tag: "Invalid", reason: "it ends in the middle of a UTF-8 sequence" }
  }
  return { _tag: "Valid" }
}
