/**
 * Prompt token counting for token-priced models: the o200k encoding of gpt-tokenizer (pure
 * TypeScript, the vocabulary ships in the package). Special-token text such as `<|endoftext|>`
 * in a prompt is counted as ordinary text, never rejected.
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base"

export const countPromptTokens = (prompt: string): number => encode(prompt, { disallowedSpecial: new Set() }).length

/** `<<<voice_N>>>` markup: the only thing that makes a voice surcharge apply. */
export const VOICE_MARKUP = /<<<voice_\d+>>>/
