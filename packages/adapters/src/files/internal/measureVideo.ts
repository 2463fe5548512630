/**
 * Video measurements from mediainfo's tracks: frame size as displayed (a 90°/270° rotation swaps
 * width and height), duration (container first, then the video track), frame rate (declared, or
 * frames / duration for variable-rate files), and which tracks the container holds (an MP4 with
 * audio only is routed to audio by core's rules).
 */
import type { Files } from "@frank/core"
import type { MediaInfoTrack } from "./MediaInfoAnalyzer.js"

const num = (value: unknown): number | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number.parseFloat(value) : Number.NaN
  return Number.isFinite(n) ? n : undefined
}

export const videoFromTracks = (tracks: ReadonlyArray<MediaInfoTrack>): Files.Probed => {
  const field = (t: MediaInfoTrack | undefined, name: string) => num((t as Record<string, unknown> | undefined)?.[name])
  const general = tracks.find((t) => t["@type"] === "General")
  const video = tracks.find((t) => t["@type"] === "Video")
  const audio = tracks.find((t) => t["@type"] === "Audio")
  const durationSeconds = field(general, "Duration") ?? field(video, "Duration") ?? field(audio, "Duration")
  const trackKinds = { video: video !== undefined, audio: audio !== undefined }
  if (video === undefined) return { durationSeconds, tracks: trackKinds }
  const rotated = Math.abs(Math.round(field(video, "Rotation") ?? 0)) % 180 === 90
  const width = field(video, "Width")
  const height = field(video, "Height")
  const frames = field(video, "FrameCount")
  const videoDuration = field(video, "Duration") ?? durationSeconds
  const fps =
    field(video, "FrameRate") ??
    (frames !== undefined && videoDuration !== undefined && videoDuration > 0 ? frames / videoDuration : undefined)
  return { width: rotated ? height : width, height: rotated ? width : height, durationSeconds, fps, tracks: trackKinds }
}
