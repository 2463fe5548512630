/**
 * Image dimensions as displayed (image-size reads the header only; JPEG with EXIF orientation 5–8
 * is shown rotated by 90°, so width and height swap).
 */
import type { Files } from "@frank/core"
import { importOptional } from "../../node/internal/optionalPackage.js"

export const measureImage = async (path: string): Promise<Files.Measurements> => {
  // Loaded on the first image import, not at start.
  const { imageSizeFromFile } = await importOptional(
    "image-size",
    "Measuring images",
    () => import("image-size/fromFile")
  )
  const size = await imageSizeFromFile(path)
  const swap = (size.orientation ?? 1) >= 5
  return swap ? { width: size.height, height: size.width } : { width: size.width, height: size.height }
}
