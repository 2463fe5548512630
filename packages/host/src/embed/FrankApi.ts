/**
 * The Promise API's services, one object per concept, built over a `Run`. `createFrank` builds it
 * over the engine's runtime; `inTransaction` and `transaction` build the same object over a `Run`
 * bound to one connection.
 */
import { type FrankKeys, type FrankPartners, type FrankSessions, makeAccessApi } from "./accessApi.js"
import { type FrankInvoices, type FrankPayments, type FrankPricing, makeBillingApi } from "./billingApi.js"
import { type FrankFiles, makeFilesApi } from "./filesApi.js"
import { type FrankLedger, makeLedgerApi } from "./ledgerApi.js"
import type { Run } from "./run.js"
import { type FrankTasks, makeTasksApi } from "./tasksApi.js"
import { type FrankDeliveries, type FrankEndpoints, makeWebhooksApi } from "./webhooksApi.js"

/** Every engine service an embedder calls, as plain async methods that reject with FrankError. */
export interface FrankApi {
  /** The prepaid ledger: credit, reserve, confirm, refund, balance. */
  readonly ledger: FrankLedger
  /** Price estimates and the catalog. */
  readonly pricing: FrankPricing
  /** Partners (the accounts Frank bills). */
  readonly partners: FrankPartners
  /** API keys. */
  readonly keys: FrankKeys
  /** Cabinet sessions and sign-in links. */
  readonly sessions: FrankSessions
  /** Webhook endpoints. */
  readonly endpoints: FrankEndpoints
  /** Webhook deliveries: list, replay, recover. */
  readonly deliveries: FrankDeliveries
  /** Generation tasks. */
  readonly tasks: FrankTasks
  /** Top-ups by card. */
  readonly payments: FrankPayments
  /** Legal invoices. */
  readonly invoices: FrankInvoices
  /** Stored media files. */
  readonly files: FrankFiles
}

/** The API over `run`; `signInLink` makes the cabinet's sign-in URL of a token. */
export const makeFrankApi = (run: Run, signInLink: (token: string) => string): FrankApi => ({
  ledger: makeLedgerApi(run),
  ...makeAccessApi(run, signInLink),
  ...makeWebhooksApi(run),
  tasks: makeTasksApi(run),
  ...makeBillingApi(run),
  files: makeFilesApi(run)
})
