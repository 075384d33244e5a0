/** English text of the console's users pages (i18next namespace `users`). */
export default {
} as const;
