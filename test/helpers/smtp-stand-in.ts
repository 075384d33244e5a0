import { SMTPServer } from 'smtp-server';

/** One mail the stand-in accepted: envelope, the raw source, and who logged in. */
export interface ReceivedMail {
  from: string;
  to: string[];
  source: string;
  user: string | undefined;
  secure: boolean;
}

/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1: STARTTLS with the package's
 * self-signed localhost certificate, or implicit TLS (`secure`), AUTH PLAIN/LOGIN checked against
 * `users`, every accepted mail recorded.
 */
export async function startSmtpStandIn(
  options: { secure?: boolean; users?: Record<string, string>; noStarttls?: boolean } = {},
) {
  const mails: ReceivedMail[] = [];
  const users = options.users ?? {};
  const server = new SMTPServer({
    secure: options.secure ?? false,
    authOptional: Object.keys(users).length === 0,
    allowInsecureAuth: false,
    disabledCommands: options.noStarttls ? ['STARTTLS'] : [],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username && users[auth.username] === auth.password) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          // Quoted-printable soft line breaks undone, so text reads as written.
          source: Buffer.concat(chunks)
            .toString('utf8')
            .replace(/=\r?\n/g, ''),
          user: typeof session.user === 'string' ? session.user : undefined,
          secure: session.secure,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
