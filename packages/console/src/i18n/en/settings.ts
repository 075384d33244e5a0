/** English text of the console's settings pages (i18next namespace `settings`). */
export default {
} as const;
