/** English text of the console's templates pages (i18next namespace `templates`). */
export default {
} as const;
