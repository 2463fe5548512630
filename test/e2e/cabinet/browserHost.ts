/**
 * The setup every browser suite repeats: Chromium launched before the suite and closed after it,
 * and (for suites that drive the host) the real host spawned with the suite's environment and
 * stopped at the end, which must exit 0. Call inside `describeBrowser`, so a machine without
 * Chromium skips the hooks with the suite.
 */
import { afterAll, beforeAll, expect } from "@effect/vitest"
import type { Browser } from "playwright-core"
import { launchBrowser } from "../../support/browser.js"
import { type RunningHost, spawnHost } from "../spawnHost.js"

/** Chromium for the suite; `ready` receives it once launched. */
export const useBrowser = (ready: (browser: Browser) => void) => {
  let browser: Browser | undefined
  beforeAll(async () => {
    browser = await launchBrowser()
    ready(browser)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })
}

export interface BrowserHost {
  readonly browser: Browser
  readonly host: RunningHost
}

/** Chromium and a host spawned with `env`; `ready` receives both once started. */
export const useBrowserHost = (env: Record<string, string>, ready: (started: BrowserHost) => void) => {
  let started: Partial<BrowserHost> = {}
  beforeAll(async () => {
    const browser = await launchBrowser()
    started = { browser }
    const host = await spawnHost(env)
    started = { browser, host }
    ready({ browser, host })
  }, 120_000)
  afterAll(async () => {
    await started.browser?.close()
    const code = await started.host?.stop()
    expect(code).toBe(0)
  }, 60_000)
}
