/** English text of the console's records pages (i18next namespace `records`). */
export default {
} as const;
