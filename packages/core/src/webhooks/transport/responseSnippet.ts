/**
 * The bounded piece of a receiver's answer an attempt keeps: the first KiB of the body as text,
 * shown on the cabinet's message page and in the API's delivery read. Never a header: a receiver's
 * headers can carry cookies or tokens, its body is what it chose to say.
 */

/** Bytes of a response body kept at most. */
export const RESPONSE_SNIPPET_BYTES = 1024

const decoder = new TextDecoder("utf-8", { fatal: false })

/**
 * The snippet of the first bytes read: UTF-8 with bad sequences replaced, a character cut by the
 * 1 KiB boundary dropped, and NUL removed (PostgreSQL text cannot hold it).
 */
export const responseSnippet = (bytes: Uint8Array): string => {
  const head = bytes.subarray(0, RESPONSE_SNIPPET_BYTES)
  let end = head.length
  // Back off a multi-byte sequence the cut left incomplete (at most 3 continuation bytes).
  if (bytes.length > RESPONSE_SNIPPET_BYTES) {
    let i = end - 1
    while (i >= 0 && i >= end - 4 && ((head[i] ?? 0) & 0xc0) === 0x80) i--
    const lead = head[i] ?? 0
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
    if (i >= 0 && end - i < need) end = i
  }
  return decoder.decode(head.subarray(0, end)).replaceAll("\0", "")
}
