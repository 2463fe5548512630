/**
 * The cabinet's static files: its stylesheet and script from `assets/cabinet/` beside `src/` (the
 * same relative path from `src/cabinet/` and a compiled `dist/cabinet/`), and the chart library
 * from its npm package. Read once, served with a long cache lifetime under a versioned name.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { resolveOptional } from "../node/internal/optionalPackage.js"

const own = (name: string) => fileURLToPath(new URL(`../../assets/cabinet/${name}`, import.meta.url))
// uplot is an optional peer of @frank/adapters: a host that mounts the cabinet installs it.
const uplot = (file: string) => resolveOptional("uplot", "The cabinet's spending chart", `uplot/dist/${file}`)

export interface Asset {
  readonly contentType: string
  readonly body: Uint8Array
}

const load = (path: string, contentType: string): Asset => ({ contentType, body: readFileSync(path) })

/** Loaded lazily so a host that never mounts the cabinet reads nothing. */
let cache: Record<string, Asset> | undefined
export const cabinetAssets = (): Record<string, Asset> => {
  cache ??= {
    "cabinet.css": load(own("cabinet.css"), "text/css; charset=utf-8"),
    "cabinet.js": load(own("cabinet.js"), "text/javascript; charset=utf-8"),
    "uplot.js": load(uplot("uPlot.iife.min.js"), "text/javascript; charset=utf-8"),
    "uplot.css": load(uplot("uPlot.min.css"), "text/css; charset=utf-8")
  }
  return cache
}

export const assetResponse = (name: string) => {
  const asset = cabinetAssets()[name]
  return asset === undefined
    ? HttpServerResponse.text("not found", { status: 404 })
    : HttpServerResponse.uint8Array(asset.body, {
        contentType: asset.contentType,
        headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
      })
}
