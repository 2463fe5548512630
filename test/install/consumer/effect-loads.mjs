// Module resolution hooks (node:module register) for one-effect.mjs: records every module URL
// this process resolves inside a package named `effect`, and answers the list when asked on the
// port, after everything posted before.
let port
const seen = new Set()

export const initialize = (data) => {
  port = data.port
  port.on("message", () => port.postMessage([...seen]))
  port.unref()
}

export const resolve = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context)
  if (/\/node_modules\/effect\//.test(resolved.url)) seen.add(resolved.url)
  return resolved
}
