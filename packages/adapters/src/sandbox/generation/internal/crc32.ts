/**
 * CRC-32 (IEEE 802.3, the polynomial PNG chunks use). zlib.crc32 exists only from Node 20.15, and
 * the engine supports every Node 20, so the 256-entry table is built here once.
 */
const TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

export const crc32 = (bytes: Uint8Array, initial = 0): number => {
  let c = (initial ^ 0xffffffff) >>> 0
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
