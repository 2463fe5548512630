/**
 * The one way browser suites get Chromium: Debian's package (playwright-core downloads none), at
 * /usr/bin/chromium or CHROMIUM_PATH. Without it, outside CI, a browser suite is skipped with a
 * printed notice saying how to enable it; with FRANK_REQUIRE_BROWSER=1 (set by .ci/run, which
 * installs Chromium) a missing browser fails the run instead.
 */
import { existsSync } from "node:fs"
import { describe } from "@effect/vitest"
import { type Browser, chromium } from "playwright-core"

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const required = process.env.FRANK_REQUIRE_BROWSER === "1" || process.env.FRANK_REQUIRE_BROWSER === "true"

export const browserAvailable = existsSync(CHROMIUM)

/**
 * `describe` for a browser suite: runs when Chromium is there (or is required, then a missing one
 * fails in `launchBrowser`), otherwise skips with a notice.
 */
export const describeBrowser = (name: string, body: () => void) => {
  const run = browserAvailable || required
  if (!run)
    console.warn(
      `[browser tests skipped] "${name}": no Chromium at ${CHROMIUM}. Install Debian's chromium ` +
        "(apt-get install -y chromium) or set CHROMIUM_PATH; CI sets FRANK_REQUIRE_BROWSER=1 to require it."
    )
  return describe.skipIf(!run)(name, body)
}

export const launchBrowser = async (): Promise<Browser> => {
  if (!browserAvailable)
    throw new Error(
      `no Chromium at ${CHROMIUM} and FRANK_REQUIRE_BROWSER is set: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`
    )
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // The machine has no outside network: keep Chromium from dialling its own services.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
}
