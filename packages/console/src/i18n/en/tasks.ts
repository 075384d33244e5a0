/** English text of the console's tasks pages (i18next namespace `tasks`), and of the shared LiveLog and NodeFsBrowser. */
export default {
  liveLog: {
    label: 'Run log', running: 'Running…', finished: 'Finished', waiting: 'Waiting for the first log line…',
    progress: '{{read}} read · {{stored}} stored · {{speed}}/s · {{elapsed}}', progressLabel: 'Run progress',
  },
  fs: {
    up: 'Up one folder', path: 'Path', go: 'Open', absolute: 'Type an absolute path (starting with /)', root: 'root', select: 'Select',
    selectThis: 'Select this folder', unselectThis: 'Unselect this folder', selectPath: 'Select {{path}}', name: 'Name', size: 'Size', modified: 'Modified',
    loading: 'Loading…', empty: 'This folder is empty.', truncated: 'Showing {{shown}} of {{total}} entries.', nothingSelected: 'Nothing selected yet.',
    pick_one: 'Use the selected path', pick_other: 'Use the {{count}} selected paths',
  },
} as const;
