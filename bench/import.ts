/**
 * bench/import — importing a 100 MiB video through the engine against a plain download of the
 * same file, in the same run:
 *
 *   npm run bench:import        (node --conditions=@frank/source --import tsx bench/import.ts; BENCH_ROUNDS=5 by default)
 *
 * The file is a real H.264 MP4 (moov at the end, test/fixtures/media/video-moov-at-end.mp4) with
 * a trailing `free` box padding it to exactly 100 MiB, the video limit. A local HTTPS server in a
 * child process (self-signed certificate, trusted as an extra CA; TLS verified) serves it.
 *
 * - plain download: undici `request` through the same guarded agent, body piped to a file.
 * - import: StoredFiles.importFile (kind video): the streamed, counted download into the spool,
 *   sniffing, mediainfo measuring (it reads the index at the end of the file), the move into the
 *   filesystem blob store, the record (memory store) and the URL.
 *
 * Rounds run back to back with alternating order; each pair is compared with itself (the
 * machine is shared) and the reported ratio is the median of the per-pair ratios. Memory: the
 * process RSS sampled every 2 ms during each run, minus the RSS just before it; the peak over all
 * rounds is reported. Targets: time ≤ 2× the plain download; RSS growth ≤ 64 MiB.
 */
import { spawn } from "node:child_process"
import { createWriteStream } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { pipeline } from "node:stream/promises"
import { GuardedDispatcher } from "@frank/adapters"
import { Files } from "@frank/core"
import { Effect, ManagedRuntime } from "effect"
import { request } from "undici"
import { filesEngine } from "../test/support/filesEngine.js"
import { testPartner } from "@frank/core/testing"
import { BlobStore } from "@frank/core/stores"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const MIB = 1024 * 1024
const ROOT = resolve(import.meta.dirname, "..")

/** The fixture with a top-level `free` box appended: still a valid MP4, exactly `size` bytes. */
const paddedVideo = async (dir: string, size: number) => {
  const video = await readFile(join(ROOT, "test/fixtures/media/video-moov-at-end.mp4"))
  const path = join(dir, "video-100mib.mp4")
  const out = createWriteStream(path)
  out.write(video)
  const header = Buffer.alloc(8)
  header.writeUInt32BE(size - video.length, 0)
  header.write("free", 4, "ascii")
  out.write(header)
  const zeros = Buffer.alloc(MIB)
  let left = size - video.length - 8
  while (left > 0) {
    const n = Math.min(left, zeros.length)
    if (!out.write(zeros.subarray(0, n))) await new Promise<void>((r) => out.once("drain", () => r()))
    left -= n
  }
  await new Promise<void>((done, fail) => out.end((e?: Error | null) => (e ? fail(e) : done())))
  return path
}

const startServer = async (file: string) => {
  const child = spawn(
    process.execPath,
    ["--conditions=@frank/source", "--import", "tsx", join(ROOT, "bench/support/serveMedia.ts"), `video.mp4=${file}`],
    {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"]
    }
  )
  const line = await new Promise<string>((done) => createInterface({ input: child.stdout }).once("line", done))
  const { port, ca } = JSON.parse(line) as { port: number; ca: string }
  return { url: `https://localhost:${port}/extra/video.mp4`, ca, stop: () => child.stdin.end() }
}

/** Runs `work` while sampling RSS (after a GC when node runs with --expose-gc, as the npm script does); answers its duration and the peak RSS growth over the start. */
const measure = async (work: () => Promise<void>) => {
  ;(globalThis as { gc?: () => void }).gc?.()
  const before = process.memoryUsage.rss()
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 2)
  const started = performance.now()
  await work()
  const ms = performance.now() - started
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage.rss())
  return { ms, rssGrowthMiB: (peak - before) / MIB }
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "frank-bench-import-"))
  const server = await startServer(await paddedVideo(dir, Files.VIDEO_MAX_BYTES))
  const agent = GuardedDispatcher.makeAgent({ allowPrivateNetwork: true, ca: server.ca })
  const runtime = ManagedRuntime.make(
    filesEngine({ agent: { allowPrivateNetwork: true, ca: server.ca }, root: join(dir, "files") })
  )
  try {
    const plain = async () => {
      const target = join(dir, "plain.mp4")
      const response = await request(server.url, { dispatcher: agent })
      if (response.statusCode !== 200) throw new Error(`plain download: HTTP ${response.statusCode}`)
      await pipeline(response.body, createWriteStream(target))
      await rm(target)
    }
    let lastImport = ""
    const engine = async () => {
      const imported = await runtime.runPromise(
        Effect.flatMap(Files.StoredFiles, (files) =>
          files.importFile(testPartner("p_bench"), { kind: "video", url: server.url })
        )
      )
      const m = imported.file.measurements
      lastImport = `${imported.file.mimeType}, ${imported.file.sizeBytes} bytes, ${m.width}x${m.height}, ${m.durationSeconds} s, ${m.fps} fps`
      // Keep the disk use of the run bounded.
      await runtime.runPromise(Effect.flatMap(BlobStore, (blobs) => blobs.delete(imported.file.blobKey)))
    }
    // Warm-up (reported too): TLS session, the WASM instance, JIT, first buffers.
    const coldPlain = await measure(plain)
    const coldEngine = await measure(engine)
    console.log(
      `bench/import: ${ROUNDS} rounds, ${Files.VIDEO_MAX_BYTES / MIB} MiB video over HTTPS on loopback; imported as ${lastImport}\n`
    )
    const rows: Array<{ plain: { ms: number; rssGrowthMiB: number }; engine: { ms: number; rssGrowthMiB: number } }> =
      []
    for (let round = 0; round < ROUNDS; round++) {
      const first = round % 2 === 0 ? "plain" : "engine"
      const a = await measure(first === "plain" ? plain : engine)
      const b = await measure(first === "plain" ? engine : plain)
      rows.push(first === "plain" ? { plain: a, engine: b } : { plain: b, engine: a })
    }
    console.log("| round | plain download ms | import ms | ratio | RSS growth MiB plain / import |")
    console.log("|---:|---:|---:|---:|---:|")
    for (const [i, r] of rows.entries())
      console.log(
        `| ${i + 1} | ${r.plain.ms.toFixed(0)} | ${r.engine.ms.toFixed(0)} | ${(r.engine.ms / r.plain.ms).toFixed(2)} | ${r.plain.rssGrowthMiB.toFixed(1)} / ${r.engine.rssGrowthMiB.toFixed(1)} |`
      )
    const ratio = median(rows.map((r) => r.engine.ms / r.plain.ms))
    const peakImport = Math.max(...rows.map((r) => r.engine.rssGrowthMiB))
    const peakPlain = Math.max(...rows.map((r) => r.plain.rssGrowthMiB))
    console.log(
      `\nmedian: plain ${median(rows.map((r) => r.plain.ms)).toFixed(0)} ms, import ${median(rows.map((r) => r.engine.ms)).toFixed(0)} ms, ratio ${ratio.toFixed(2)} (target ≤ 2: ${ratio <= 2 ? "met" : "NOT met"})`
    )
    console.log(
      `peak RSS growth: import ${peakImport.toFixed(1)} MiB (target ≤ 64: ${peakImport <= 64 ? "met" : "NOT met"}), plain download ${peakPlain.toFixed(1)} MiB`
    )
    console.log(
      `cold (first of each, before the rounds): plain ${coldPlain.ms.toFixed(0)} ms / +${coldPlain.rssGrowthMiB.toFixed(1)} MiB RSS, ` +
        `import ${coldEngine.ms.toFixed(0)} ms / +${coldEngine.rssGrowthMiB.toFixed(1)} MiB RSS (mediainfo's WASM instance is created here)`
    )
  } finally {
    await runtime.dispose()
    await agent.destroy()
    server.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
