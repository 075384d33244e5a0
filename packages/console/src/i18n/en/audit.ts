/** English text of the console's audit pages (i18next namespace `audit`). */
export default {
} as const;
