/**
 * Prompt token counting for token-priced models: the o200k encoding of gpt-tokenizer (pure
 * TypeScript, the vocabulary ships in the package, so core stays platform-neutral). Special-token
 * text such as `<|endoftext|>` in a prompt is counted as ordinary text: by default the tokenizer
 * throws on it, and a partner's prompt must never crash an estimate.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"

const asPlainText = { disallowedSpecial: new Set<string>() }

export const countPromptTokens = (prompt: string): number => countTokens(prompt, asPlainText)

/** `<<<voice_N>>>` markup (N digits): the only thing that makes a voice surcharge apply. */
export const VOICE_MARKUP = /<<<voice_\d+>>>/

/** The distinct voices named by the markup, e.g. 2 for `<<<voice_1>>> … <<<voice_3>>> … <<<voice_1>>>`. */
export const markupVoiceCount = (prompt: string): number => new Set(prompt.match(/<<<voice_\d+>>>/g) ?? []).size
