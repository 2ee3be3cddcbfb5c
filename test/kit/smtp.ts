// A real SMTP server on loopback (smtp-server) that keeps what it accepts, parsed (mailparser), and can be
// told to refuse the next messages with a code, as a relay that is busy (451) or refuses (550) would.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Received {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

export interface TestSmtp {
  url: string;
  received: Received[];
  /** The next `count` messages are refused with `code` (after DATA: the whole message was read). */
  refuseNext(count: number, code: number): void;
  refused: number;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const received: Received[] = [];
  let refusing: { count: number; code: number } = { count: 0, code: 0 };
  const state = { refused: 0 };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      void simpleParser(stream).then(
        (mail: ParsedMail) => {
          if (refusing.count > 0) {
            refusing = { ...refusing, count: refusing.count - 1 };
            state.refused++;
            return callback(Object.assign(new Error(refusing.code >= 500 ? 'mailbox unavailable' : 'try again later'), { responseCode: refusing.code }));
          }
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
            messageId: mail.messageId ?? '',
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseNext(count, code) {
      refusing = { count, code };
    },
    get refused() {
      return state.refused;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
