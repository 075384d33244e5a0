/** English text of the console's targets pages (i18next namespace `targets`). */
export default {
} as const;
