/** English text of the console's nodes pages (i18next namespace `nodes`). */
export default {
} as const;
