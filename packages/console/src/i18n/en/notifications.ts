/** English text of the console's notifications pages (i18next namespace `notifications`). */
export default {
} as const;
