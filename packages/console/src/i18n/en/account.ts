/** English text of the console's account pages (i18next namespace `account`). */
export default {
} as const;
