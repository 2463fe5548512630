/**
 * The task service on memory for tests and embedders' simulations: memory task store, memory
 * stored-file ownership (`OwnedFiles`) and the manual provider (`ManualGeneration`). Needs the
 * Ledger, Outbox, Tariffs, Pricing and Ids the rest of the engine uses.
 */
import { Layer } from "effect"
import { Tasks } from "../../tasks/Tasks.js"
import { TaskSettings } from "../../tasks/TaskSettings.js"
import { ManualGenerationProvider } from "./ManualGenerationProvider.js"
import { MemoryStoredFileLookup } from "../files/MemoryStoredFileLookup.js"
import { MemoryTaskStore } from "./MemoryTaskStore.js"

/** The tasks service on memory stores and a manual provider, for tests. */
export const TasksOnMemory = (publicBaseUrl = "http://localhost") =>
  Tasks.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        MemoryTaskStore,
        MemoryStoredFileLookup,
        ManualGenerationProvider,
        TaskSettings.layer({ publicBaseUrl })
      )
    )
  )
