/**
 * Partners, API keys and cabinet sessions through Promises. The embedder's own login leads into
 * the cabinet with `sessions.signInUrl`: a one-time link, no second password.
 */
import { Access } from "@frank/core"
import { type Context, Effect } from "effect"
import { ids } from "./ids.js"
import { withPartner, withService } from "./partner.js"
import type { Run } from "./run.js"

type Service = Context.Tag.Service<typeof Access.Access>
type Success<F extends (...args: never) => Effect.Effect<unknown, unknown, unknown>> = Effect.Effect.Success<
  ReturnType<F>
>
/** What a new key is: its label, scopes (all when omitted) and optional expiry in days. */
export type IssueKeyCommand = Parameters<Service["issueKey"]>[1]
/** A change of a key's label, scopes or expiry. */
export type ChangeKeyCommand = Parameters<Service["changeKey"]>[2]
/** A key just issued: its secret is shown this once. */
export type IssuedKey = Success<Service["issueKey"]>
/** A key as listed: never its secret. */
export type KeyView = Access.KeyView
/** A session or sign-in token and when it expires (epoch ms). */
export type SessionToken = Success<Service["createSession"]>

/** Partners: the accounts Frank bills. */
export interface FrankPartners {
  /** Creates a partner; keep its `id` beside your own user or organisation row. */
  create(name: string): Promise<Access.Partner>
  /** The partner; PARTNER_NOT_FOUND (404) when there is none. */
  get(partnerId: string): Promise<Access.Partner>
}

/** API keys of a partner. */
export interface FrankKeys {
  /** Issues a key; the answer holds the secret, which Frank never shows again. */
  issue(partnerId: string, cmd: IssueKeyCommand): Promise<IssuedKey>
  /** The partner's keys, without secrets. */
  list(partnerId: string): Promise<ReadonlyArray<KeyView>>
  /** Relabels a key or changes its scopes or expiry; API_KEY_NOT_FOUND when it is not the partner's. */
  change(partnerId: string, keyId: string, cmd: ChangeKeyCommand): Promise<KeyView>
  /** Revokes a key at once; answers whether a key was revoked. */
  revoke(partnerId: string, keyId: string, reason?: string): Promise<boolean>
  /** The key behind a raw `Authorization` secret; API_KEY_INVALID or API_KEY_EXPIRED (401) otherwise. */
  authenticate(raw: string): Promise<Access.ApiKeyRecord>
}

/** Cabinet sessions, opened by the embedder's own sign-in. */
export interface FrankSessions {
  /**
   * A one-time link into the partner cabinet for a user your application has signed in already:
   * redirect them to it. Valid 15 minutes; it opens a session of `ttlSeconds`.
   */
  signInUrl(partnerId: string, ttlSeconds?: number): Promise<string>
  /** A session token for the `service_token` cookie, when you set the cookie yourself. */
  create(partnerId: string, ttlSeconds?: number): Promise<SessionToken>
  /** The partner of a session token; SESSION_EXPIRED or SESSION_REQUIRED (401) otherwise. */
  authenticate(token: string): Promise<{ readonly partnerId: string }>
  /** Ends a session: its token stops working at once. */
  end(token: string): Promise<void>
}

/** The three access APIs over `run`; `signInUrl` turns a sign-in token into the cabinet's link. */
export const makeAccessApi = (run: Run, signInLink: (token: string) => string) => {
  const use = withPartner(run, Access.Access)
  const service = withService(run, Access.Access)
  const partners: FrankPartners = {
    create: (name) => service((a) => a.createPartner(name)),
    get: (partnerId) => use(partnerId, (a, id) => a.getPartner(id))
  }
  const keys: FrankKeys = {
    issue: (partnerId, cmd) => use(partnerId, (a, id) => a.issueKey(id, cmd)),
    list: (partnerId) => use(partnerId, (a, id) => a.listKeys(id, {})),
    change: (partnerId, keyId, cmd) =>
      use(partnerId, (a, id) => Effect.flatMap(ids.key(keyId), (key) => a.changeKey(id, key, cmd))),
    revoke: (partnerId, keyId, reason) =>
      use(partnerId, (a, id) => Effect.flatMap(ids.key(keyId), (key) => a.revokeKey(id, key, reason))),
    authenticate: (raw) => service((a) => a.authenticateKey(raw))
  }
  const sessions: FrankSessions = {
    signInUrl: (partnerId, ttlSeconds) =>
      use(partnerId, (a, id) => Effect.map(a.createSignIn(id, ttlSeconds), (s) => signInLink(s.token))),
    create: (partnerId, ttlSeconds) => use(partnerId, (a, id) => a.createSession(id, ttlSeconds)),
    authenticate: (token) => service((a) => a.authenticateSession(token)),
    end: (token) => service((a) => a.endSession(token))
  }
  return { partners, keys, sessions }
}
