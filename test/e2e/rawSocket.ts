/**
 * A raw TCP exchange with the host, for clients no HTTP library would be: `talk` writes what it
 * likes on the socket; the promise answers everything the host sent until it closed the connection.
 */
import { connect, type Socket } from "node:net"

export const rawExchange = (baseUrl: string, talk: (socket: Socket) => void) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(baseUrl).port), "127.0.0.1")
    let text = ""
    socket.on("data", (d) => {
      text += d
    })
    socket.on("close", () => resolve(text))
    socket.on("error", reject)
    talk(socket)
  })
