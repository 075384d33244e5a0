import { escapeHtml as escape, SEVERITY_COLOURS, shownFields, type NotificationMessage } from '@backplane/plugin-api';

/** The plain-text part: the body, the fields one per line, the link. */
export function textBody(message: NotificationMessage): string {
  const fields = shownFields(message.fields).map(([k, v]) => `${k}: ${v}`);
  return [
    message.body,
    '',
    ...fields,
    ...(message.link ? ['', message.link] : []),
    '',
    `-- Backplane, ${message.timestamp}`,
  ].join('\n');
}

/** The HTML part: the same content, escaped, with the severity as a colour. */
export function htmlBody(message: NotificationMessage): string {
  const rows = shownFields(message.fields)
    .map(([k, v]) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escape(k)}</th><td>${escape(v)}</td></tr>`)
    .join('');
  const body = message.body.split('\n').map(escape).join('<br>');
  const link =
    message.link && /^https?:\/\//.test(message.link)
      ? `<p><a href="${escape(message.link)}">${escape(message.link)}</a></p>`
      : '';
  return (
    `<!doctype html><html><body style="font-family:sans-serif">` +
    `<h2 style="color:${SEVERITY_COLOURS[message.severity] ?? SEVERITY_COLOURS.info}">${escape(message.title)}</h2>` +
    `<p>${body}</p><table>${rows}</table>${link}` +
    `<p style="color:#777;font-size:small">Backplane, ${escape(message.timestamp)}</p></body></html>`
  );
}
