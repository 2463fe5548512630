/**
 * Short Russian captions shown in the cabinet and exports, one per entry kind. `label` is the
 * caption; `description` adds the detail of this particular row.
 */
import type { EntryKind } from "../Entry.js"

export const entryLabels: Readonly<Record<EntryKind, string>> = {
  topup: "Пополнение баланса",
  bonus: "Бонусное начисление",
  adjustment: "Корректировка баланса",
  bonus_reversal: "Списание бонуса",
  bonus_expired: "Сгорание бонуса",
  task_hold: "Резерв средств по задаче",
  task_charge: "Списание по задаче",
  task_release: "Возврат неиспользованного резерва",
  task_refund: "Возврат резерва по задаче",
  task_hold_expired: "Возврат резерва: срок задачи истёк",
  spend_refund: "Возврат средств",
  legacy_debit: "Списание"
}

export const describeEntry = (
  kind: EntryKind,
  detail: { taskId?: string | null; note?: string | undefined }
): string => {
  const base = entryLabels[kind]
  if (detail.note !== undefined && detail.note.length > 0) return `${base}: ${detail.note}`
  if (detail.taskId !== undefined && detail.taskId !== null) return `${base} ${detail.taskId}`
  return base
}
