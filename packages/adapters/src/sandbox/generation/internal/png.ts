/**
 * A minimal PNG encoder (8-bit truecolour, no interlace): enough for the sandbox to answer an
 * image task with a real, viewable picture without any image library or network.
 */
import { deflateSync } from "node:zlib"
import { crc32 } from "./crc32.js"

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)

const chunk = (type: string, data: Uint8Array): Uint8Array => {
  const out = new Uint8Array(12 + data.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, data.length)
  const typeAndData = out.subarray(4, 8 + data.length)
  typeAndData.set(new TextEncoder().encode(type), 0)
  typeAndData.set(data, 4)
  view.setUint32(8 + data.length, crc32(typeAndData))
  return out
}

/** `rgb` holds width × height × 3 bytes, rows top to bottom. */
export const encodePng = (width: number, height: number, rgb: Uint8Array): Uint8Array => {
  if (rgb.length !== width * height * 3)
    throw new RangeError(`expected ${width * height * 3} RGB bytes, got ${rgb.length}`)
  const header = new Uint8Array(13)
  const h = new DataView(header.buffer)
  h.setUint32(0, width)
  h.setUint32(4, height)
  header[8] = 8 // bit depth
  header[9] = 2 // colour type: truecolour
  // Each scanline starts with its filter type (0: none).
  const raw = new Uint8Array(height * (1 + width * 3))
  for (let y = 0; y < height; y++) raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (1 + width * 3) + 1)
  const parts = [
    SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array(0))
  ]
  return Buffer.concat(parts)
}
