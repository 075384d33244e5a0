/** English text of the console's tasks pages (i18next namespace `tasks`). */
export default {
} as const;
