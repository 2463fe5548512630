// Tests call the pure estimate directly; the host loads the encoding on the first estimate instead.
import { loadTokenizer } from "@frank/core"

await loadTokenizer()
