/** English text of the console's tasks pages (i18next namespace `tasks`), and of the shared LiveLog and NodeFsBrowser. */
export default {
  liveLog: {
    label: 'Run log', running: 'Running…', finished: 'Finished', waiting: 'Waiting for the first log line…',
    progress: '{{read}} read · {{stored}} stored · {{speed}}/s · {{elapsed}}', progressLabel: 'Run progress',
  },
} as const;
