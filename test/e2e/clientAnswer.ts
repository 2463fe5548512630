/**
 * The answer to a node:http client request, even when the host closes the connection before the
 * client finished sending (a refusal before the body is read): the client may see the close
 * (EPIPE, a reset) before it has read the answer, which is already on its way.
 */
import type { ClientRequest } from "node:http"

export interface ClientAnswer {
  readonly status: number
  readonly text: string
}

/** Resolves with the answer; `answered()` says whether the status line has arrived yet. */
export const answerOf = (req: ClientRequest) => {
  let answered = false
  const answer = new Promise<ClientAnswer>((resolve, reject) => {
    req.on("response", (res) => {
      answered = true
      let text = ""
      res.on("data", (d) => {
        text += d
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on("error", (e) => setTimeout(() => (answered ? undefined : reject(e)), 1000))
  })
  return { answer, answered: () => answered }
}
