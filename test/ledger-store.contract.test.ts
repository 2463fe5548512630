import { MemoryLedgerStore } from "@frank/adapters"
import { ledgerStoreContract } from "./contract/ledgerStoreContract.js"

ledgerStoreContract("memory", MemoryLedgerStore)
