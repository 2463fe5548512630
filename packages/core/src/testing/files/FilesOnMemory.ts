/**
 * The stored-files service on memory for tests and embedders' simulations: memory records and
 * blobs, scripted media sources (`ScriptedMedia.serve(url, file)`), production import settings
 * and host-style file URLs under `publicBaseUrl`. Needs Ids and Secrets from the engine.
 */
import { Layer } from "effect"
import { ImportSettings } from "../../files/import/ImportSettings.js"
import { StoredFiles } from "../../files/StoredFiles.js"
import { StoredFileUrls } from "../../files/StoredFileUrls.js"
import { MemoryBlobStore } from "./MemoryBlobStore.js"
import { MemoryStoredFileStore } from "./MemoryStoredFileStore.js"
import { ScriptedMedia } from "./ScriptedMedia.js"

/** The stored files service on memory stores, for tests. */
export const FilesOnMemory = (publicBaseUrl = "http://localhost") =>
  StoredFiles.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        MemoryStoredFileStore,
        MemoryBlobStore,
        ScriptedMedia.layer,
        ImportSettings.layerProduction,
        StoredFileUrls.layerHostServed(publicBaseUrl)
      )
    )
  )
