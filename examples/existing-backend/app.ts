/**
 * The application: an Express backend with its own users, sessions, payments and tasks, which
 * embeds Frank for billing. Sign-up makes a user and the Frank partner that bills them; "buy
 * credits" writes the app's payment row and the Frank credit in one transaction; the account page
 * links into Frank's cabinet with the app's own login (no second password); the partner API is
 * served under `/partner-api` by `frank.node`.
 */
import { randomBytes, randomUUID, scryptSync, timingSafeEqual } from "node:crypto"
import type { Frank } from "@frank/host/embed"
import express, { type NextFunction, type Request, type Response } from "express"
import type { AppDatabase } from "./appDatabase.js"

const SESSION_COOKIE = "app_session"
const SESSION_DAYS = 7

/** The signed-in user of a request, as the session middleware found them. */
interface User {
  readonly id: string
  readonly email: string
  readonly partnerId: string
}

const hashPassword = (password: string): string => {
  const salt = randomBytes(16)
  return `${salt.toString("hex")}:${scryptSync(password, salt, 32).toString("hex")}`
}

const passwordMatches = (password: string, stored: string): boolean => {
  const [salt = "", hash = ""] = stored.split(":")
  return timingSafeEqual(scryptSync(password, Buffer.from(salt, "hex"), 32), Buffer.from(hash, "hex"))
}

/** Whether `error`, or an error it was caused by, is PostgreSQL refusing `constraint`. */
const violates = (error: unknown, constraint: string): boolean => {
  for (let e = error; typeof e === "object" && e !== null; e = (e as { cause?: unknown }).cause)
    if ((e as { constraint?: unknown }).constraint === constraint) return true
  return false
}

const cookieOf = (req: Request, name: string): string | undefined =>
  (req.headers.cookie ?? "")
    .split(";")
    .map((c) => c.trim().split("="))
    .find(([k]) => k === name)?.[1]

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The Express app over the app's database and an embedded Frank (`basePath: "/partner-api"`). */
export const createApp = (db: AppDatabase, frank: Frank): express.Express => {
  const app = express()
  // Before the body parser: Frank reads its own request bodies. Serves /partner-api/v1/… and
  // /partner-api/cabinet; every other path goes on to the app's routes.
  app.use(frank.node)
  app.use(express.json())

  const openSession = async (res: Response, userId: string) => {
    const token = randomBytes(32).toString("base64url")
    await db.query(
      `INSERT INTO public.sessions (token, user_id, expires_at) VALUES ($1, $2, now() + make_interval(days => ${SESSION_DAYS}))`,
      [token, userId]
    )
    res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: "lax", maxAge: SESSION_DAYS * 86_400_000 })
  }

  const signedIn = async (req: Request, res: Response, next: NextFunction) => {
    const token = cookieOf(req, SESSION_COOKIE)
    const [user] =
      token === undefined
        ? []
        : await db.query<User>(
            `SELECT u.id, u.email, u.partner_id AS "partnerId" FROM public.sessions s
             JOIN public.users u ON u.id = s.user_id WHERE s.token = $1 AND s.expires_at > now()`,
            [token]
          )
    if (user === undefined) return void res.status(401).json({ error: "SIGN_IN_REQUIRED" })
    res.locals.user = user
    next()
  }
  const userOf = (res: Response): User => res.locals.user as User

  // Sign-up: the user, their Frank partner and a first to-do commit together.
  app.post("/signup", async (req, res) => {
    const { email, password } = req.body as { email?: string; password?: string }
    if (!email || !password) return void res.status(400).json({ error: "EMAIL_AND_PASSWORD_REQUIRED" })
    const user = await db
      .transaction(async (query, billing) => {
        const partner = await billing.partners.create(email)
        const id = randomUUID()
        await query("INSERT INTO public.users (id, email, password_hash, partner_id) VALUES ($1, $2, $3, $4)", [
          id,
          email,
          hashPassword(password),
          partner.id
        ])
        await query("INSERT INTO public.tasks (id, user_id, title) VALUES ($1, $2, 'Buy your first credits')", [
          randomUUID(),
          id
        ])
        return { id, partnerId: partner.id }
      })
      .catch((e: unknown) => {
        if (violates(e, "users_email_key")) return undefined
        throw e
      })
    if (user === undefined) return void res.status(409).json({ error: "EMAIL_TAKEN" })
    await openSession(res, user.id)
    res.status(201).json({ userId: user.id, partnerId: user.partnerId })
  })

  app.post("/login", async (req, res) => {
    const { email, password } = req.body as { email?: string; password?: string }
    const [user] = await db.query<{ id: string; password_hash: string }>(
      "SELECT id, password_hash FROM public.users WHERE email = $1",
      [email ?? ""]
    )
    if (user === undefined || !passwordMatches(password ?? "", user.password_hash))
      return void res.status(401).json({ error: "WRONG_EMAIL_OR_PASSWORD" })
    await openSession(res, user.id)
    res.status(204).end()
  })

  // Buy credits: the app's payment row, Frank's credit (and its billing.topup.confirmed event),
  // and the user's purchase total commit together, or none of them does.
  app.post("/credits", signedIn, async (req, res) => {
    const user = userOf(res)
    const amountMinor = Number((req.body as { amountMinor?: unknown }).amountMinor)
    if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0)
      return void res.status(400).json({ error: "AMOUNT_INVALID" })
    const paymentId = randomUUID()
    const bought = await db
      .transaction(async (query, billing) => {
        await query("INSERT INTO public.payments (id, user_id, amount_minor) VALUES ($1, $2, $3)", [
          paymentId,
          user.id,
          amountMinor
        ])
        await billing.ledger.credit(user.partnerId, { kind: "topup", amountMinor, reference: `payment:${paymentId}` })
        // The app's own rule, checked after the credit: purchase_cap may refuse, and all rolls back.
        await query("UPDATE public.users SET purchased_minor = purchased_minor + $2 WHERE id = $1", [
          user.id,
          amountMinor
        ])
        return true
      })
      .catch((e: unknown) => {
        if (violates(e, "purchase_cap")) return undefined
        throw e
      })
    if (bought === undefined) return void res.status(422).json({ error: "PURCHASE_CAP_REACHED" })
    res.status(201).json({ paymentId })
  })

  // A key for the user's own integrations with the partner API.
  app.post("/api-keys", signedIn, async (_req, res) => {
    const issued = await frank.keys.issue(userOf(res).partnerId, { label: "from the account page" })
    res.status(201).json({ key: issued.raw })
  })

  app.get("/account", signedIn, async (_req, res) => {
    const user = userOf(res)
    const balance = await frank.ledger.balance(user.partnerId)
    res.type("html").send(
      `<!doctype html><html><body><h1>${escapeHtml(user.email)}</h1>
       <p>Credits: ${balance.available} ₣</p>
       <p><a href="/account/billing">Billing and usage</a></p></body></html>`
    )
  })

  // The app's login leads into Frank's cabinet: a one-time sign-in link, minted on the click.
  app.get("/account/billing", signedIn, async (_req, res) => {
    res.redirect(303, await frank.sessions.signInUrl(userOf(res).partnerId))
  })

  return app
}
