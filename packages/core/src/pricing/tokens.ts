/**
 * Prompt token counting for token-priced models: the o200k encoding of gpt-tokenizer (pure
 * TypeScript, the vocabulary ships in the package, so core stays platform-neutral). Special-token
 * text such as `<|endoftext|>` in a prompt is counted as ordinary text: by default the tokenizer
 * throws on it, and a partner's prompt must never crash an estimate.
 *
 * The encoding costs about 66 MiB and a second to load, and only estimates of token-priced models
 * use it, so it loads on first use: `tokenizerReady` (or `loadTokenizer()`) before estimating.
 * gpt-tokenizer is an optional peer of @frank/core: without it, estimating a token-priced model
 * dies with an error naming the package to install.
 */
import { Effect } from "effect"
import { importOptional } from "../internal/optionalPackage.js"
import { type Catalog, findModel } from "./Catalog.js"

type CountTokens = typeof import("gpt-tokenizer/encoding/o200k_base").countTokens

let counter: CountTokens | undefined
let loading: Promise<void> | undefined

/** Loads the o200k encoding once; later calls resolve at once. */
export const loadTokenizer = (): Promise<void> =>
  (loading ??= importOptional(
    "gpt-tokenizer",
    "Estimating a token-priced model",
    () => import("gpt-tokenizer/encoding/o200k_base")
  ).then(
    (m) => {
      counter = m.countTokens
    },
    (error: unknown) => {
      // Not cached: installing the package later lets the next estimate load it.
      loading = undefined
      throw error
    }
  ))

/** `loadTokenizer` as an effect: free once the encoding is loaded. */
export const tokenizerReady: Effect.Effect<void> = Effect.suspend(() =>
  counter === undefined ? Effect.promise(loadTokenizer) : Effect.void
)

/**
 * `tokenizerReady` when `modelId` has a token-metered operation, else nothing: an estimate or a
 * launch of any other model never loads (nor needs) gpt-tokenizer.
 */
export const tokenizerReadyFor = (catalog: Catalog, modelId: string): Effect.Effect<void> =>
  findModel(catalog, modelId)?.operations.some((op) => op.metering.kind === "tokens") === true
    ? tokenizerReady
    : Effect.void

const asPlainText = { disallowedSpecial: new Set<string>() }

export const countPromptTokens = (prompt: string): number => {
  if (counter === undefined)
    throw new Error("the tokenizer is not loaded: await loadTokenizer() (or yield* tokenizerReady) before estimating")
  return counter(prompt, asPlainText)
}

/** `<<<voice_N>>>` markup (N digits): the only thing that makes a voice surcharge apply. */
export const VOICE_MARKUP = /<<<voice_\d+>>>/

/** The distinct voices named by the markup, e.g. 2 for `<<<voice_1>>> … <<<voice_3>>> … <<<voice_1>>>`. */
export const markupVoiceCount = (prompt: string): number => new Set(prompt.match(/<<<voice_\d+>>>/g) ?? []).size
