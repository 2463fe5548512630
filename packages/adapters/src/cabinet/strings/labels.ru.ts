/** The words for the engine's values in Russian (see labels.en.ts). */
import type { Labels } from "./labels.en.js"

export const labelsRu: Labels = {
  plan: { base: "Базовый", pro: "Про", max: "Макс", ultra: "Ультра" },
  invoiceStatus: { issued: "Выставлен", paid: "Оплачен", canceled: "Отменён", expired: "Просрочен" },
  paymentStatus: {
    pending: "Ожидает оплаты",
    authorized: "Авторизован",
    confirmed: "Оплачен",
    canceled: "Отменён",
    rejected: "Отклонён",
    failed: "Ошибка"
  },
  taskStatus: { queued: "В очереди", running: "Выполняется", succeeded: "Готово", failed: "Ошибка" },
  deliveryStatus: {
    pending: "Ждёт повтора",
    delivering: "Отправляется",
    delivered: "Доставлено",
    uncertain: "Исход неизвестен",
    dead_lettered: "Попытки исчерпаны"
  },
  entryKind: {
    topup: "Пополнение",
    bonus: "Бонус",
    adjustment: "Корректировка",
    bonus_reversal: "Списание бонуса",
    bonus_expired: "Бонус сгорел",
    task_hold: "Резерв задачи",
    task_charge: "Оплата задачи",
    task_release: "Возврат неиспользованного резерва",
    task_refund: "Возврат за неудачную задачу",
    task_hold_expired: "Резерв истёк",
    spend_refund: "Возврат",
    legacy_debit: "Списание (старый API)"
  },
  /** The sample catalog's operations; an operator's own stay as written, in code. */
  operations: {
    chat: "Чат",
    "image-edit": "Редактирование изображения",
    "image-to-video": "Видео из изображения",
    moderate: "Модерация",
    "remove-background": "Удаление фона",
    "text-to-image": "Изображение по тексту",
    "text-to-speech": "Озвучивание текста",
    "text-to-video": "Видео по тексту",
    transcription: "Расшифровка речи",
    upscale: "Увеличение разрешения"
  } as Record<string, string>,
  /** The sample catalog's billing units; others stay as written. */
  billingUnits: {
    "1K tokens": "1 тыс. токенов",
    image: "изображение",
    minute: "минута",
    request: "запрос",
    second: "секунда"
  } as Record<string, string>,
  eventTypes: {
    "billing.settled": "Списание подтверждено, с итоговой суммой.",
    "billing.refunded": "Резерв задачи возвращён после её ошибки или истечения.",
    "billing.topup.confirmed": "Пополнение зачислено.",
    "billing.low_balance": "Доступный баланс опустился ниже 1 000 ₣ (не чаще раза в сутки).",
    "billing.bonus_expired": "Остаток бонусного начисления сгорел и списан.",
    "billing.balance_alert": "Доступный баланс пересёк один из ваших порогов уведомлений.",
    "billing.invoice.status_changed": "Счёт сменил статус или оплачен.",
    "task.succeeded": "Задача генерации выполнена.",
    "task.failed": "Задача генерации завершилась ошибкой.",
    "task.refunded": "Резерв неудачной задачи вернулся в доступный баланс.",
    "webhook.test": "Тестовое событие, отправленное по запросу на один адрес.",
    "webhook.endpoint.disabled": "Адрес приостановлен автоматически после многодневных ошибок."
  },
  auditActions: {
    "api_key.issued": "Ключ выпущен",
    "api_key.renamed": "Ключ переименован",
    "api_key.narrowed": "Области ключа сужены",
    "api_key.revoked": "Ключ отозван",
    "partner.created": "Учётная запись создана",
    "sign_in_link.created": "Создана ссылка для входа",
    "session.created": "Сессия открыта",
    "session.signed_in": "Вход в кабинет",
    "session.ended": "Выход из кабинета",
    "webhook_endpoint.created": "Адрес добавлен",
    "webhook_endpoint.updated": "Адрес изменён",
    "webhook_endpoint.paused": "Адрес приостановлен",
    "webhook_endpoint.resumed": "Адрес возобновлён",
    "webhook_endpoint.secret_rotated": "Секрет адреса сменён",
    "webhook_endpoint.deleted": "Адрес удалён",
    "webhook_endpoint.recovered": "Доставки адреса восстановлены",
    "webhook_endpoint.tested": "Отправлено тестовое событие",
    "webhook_delivery.replayed": "Доставка повторена",
    "company_profile.updated": "Реквизиты сохранены",
    "invoice.created": "Счёт выставлен",
    "invoice.sbp_link_created": "Создана ссылка СБП",
    "top_up_link.created": "Начато пополнение",
    "credit.added": "Начисление",
    "balance_alert.created": "Уведомление о балансе добавлено",
    "balance_alert.deleted": "Уведомление о балансе удалено",
    "tariff.assigned": "Назначен тариф"
  },
  auditTargets: {
    api_key: "Ключ",
    legacy_api_key: "Старый ключ",
    partner: "Учётная запись",
    session: "Сессия",
    webhook_endpoint: "Адрес",
    webhook_delivery: "Доставка",
    company_profile: "Реквизиты",
    invoice: "Счёт",
    payment: "Платёж",
    ledger_entry: "Операция",
    balance_alert: "Уведомление о балансе"
  }
}
