/**
 * A task id for tests and simulations. The ledger's holds take the branded `TaskId` the task
 * service issues; ledger tests name their tasks readably ("t1"), and stores hold task ids as text,
 * so this brands any string without decoding it (as `testPartner` does for partners).
 */
import type { TaskId } from "../../EntityIds.js"

/** A task id from a fixed string, for tests that name their tasks. */
export const testTask = (id: string): TaskId => id as TaskId
