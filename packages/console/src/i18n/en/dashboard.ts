/** English text of the console's dashboard pages (i18next namespace `dashboard`). */
export default {
} as const;
