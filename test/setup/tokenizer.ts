// Tests call the pure estimate directly; the host loads the encoding on the first estimate instead.
import { Pricing } from "@frank/core"

await Pricing.loadTokenizer()
