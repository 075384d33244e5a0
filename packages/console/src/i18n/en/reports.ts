/** English text of the console's reports pages (i18next namespace `reports`). */
export default {
} as const;
