/**
 * An AVI (RIFF) file with one uncompressed RGB24 video stream: the sandbox's video output. Every
 * player and probe reads it (ffprobe: `rawvideo, bgr24`), and it needs no codec to write.
 *
 * Layout: RIFF 'AVI ' { LIST 'hdrl' { avih, LIST 'strl' { strh, strf } }, LIST 'movi' { '00db'… }, idx1 }.
 */

/** Frames are width × height × 3 bytes of RGB, rows top to bottom. */
export const encodeAvi = (
  width: number,
  height: number,
  fps: number,
  frames: ReadonlyArray<Uint8Array>
): Uint8Array => {
  const stride = Math.ceil((width * 3) / 4) * 4 // DIB rows are padded to 4 bytes
  const frameBytes = stride * height
  const movi = 4 + frames.length * (8 + frameBytes)
  const hdrl = 4 + (8 + 56) + (8 + 4 + (8 + 56) + (8 + 40))
  const idx1 = frames.length * 16
  const total = 12 + (8 + hdrl) + (8 + movi) + (8 + idx1)
  const out = new Uint8Array(total)
  const v = new DataView(out.buffer)
  let at = 0
  const fourcc = (s: string) => {
    for (let i = 0; i < 4; i++) out[at + i] = s.charCodeAt(i)
    at += 4
  }
  const u32 = (n: number) => {
    v.setUint32(at, n, true)
    at += 4
  }
  const u16 = (n: number) => {
    v.setUint16(at, n, true)
    at += 2
  }

  fourcc("RIFF")
  u32(total - 8)
  fourcc("AVI ")
  fourcc("LIST")
  u32(hdrl)
  fourcc("hdrl")
  fourcc("avih")
  u32(56)
  u32(Math.round(1_000_000 / fps)) // microseconds per frame
  u32(frameBytes * fps) // max bytes per second
  u32(0) // padding granularity
  u32(0x10) // AVIF_HASINDEX
  u32(frames.length)
  u32(0) // initial frames
  u32(1) // streams
  u32(frameBytes) // suggested buffer size
  u32(width)
  u32(height)
  for (let i = 0; i < 4; i++) u32(0)
  fourcc("LIST")
  u32(4 + (8 + 56) + (8 + 40))
  fourcc("strl")
  fourcc("strh")
  u32(56)
  fourcc("vids")
  fourcc("DIB ")
  u32(0) // flags
  u16(0) // priority
  u16(0) // language
  u32(0) // initial frames
  u32(1) // scale
  u32(fps) // rate: fps = rate / scale
  u32(0) // start
  u32(frames.length) // length in frames
  u32(frameBytes)
  u32(0xffffffff) // quality: default
  u32(0) // sample size: varies
  u16(0)
  u16(0)
  u16(width)
  u16(height)
  fourcc("strf")
  u32(40)
  u32(40) // BITMAPINFOHEADER size
  u32(width)
  u32(height) // positive: rows bottom-up
  u16(1) // planes
  u16(24) // bits per pixel
  u32(0) // BI_RGB
  u32(frameBytes)
  for (let i = 0; i < 4; i++) u32(0)

  fourcc("LIST")
  u32(movi)
  const moviStart = at
  fourcc("movi")
  const offsets: number[] = []
  for (const rgb of frames) {
    if (rgb.length !== width * height * 3)
      throw new RangeError(`expected ${width * height * 3} RGB bytes per frame, got ${rgb.length}`)
    offsets.push(at - moviStart)
    fourcc("00db")
    u32(frameBytes)
    // Bottom-up rows of BGR pixels.
    for (let y = 0; y < height; y++) {
      const row = at + (height - 1 - y) * stride
      for (let x = 0; x < width; x++) {
        const p = (y * width + x) * 3
        out[row + x * 3] = rgb[p + 2]!
        out[row + x * 3 + 1] = rgb[p + 1]!
        out[row + x * 3 + 2] = rgb[p]!
      }
    }
    at += frameBytes
  }
  fourcc("idx1")
  u32(idx1)
  for (const offset of offsets) {
    fourcc("00db")
    u32(0x10) // AVIIF_KEYFRAME
    u32(offset)
    u32(frameBytes)
  }
  return out
}
