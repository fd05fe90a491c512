// Where a queued message goes: an SMTP server (SMTP_URL, through nodemailer), or nowhere (the
// message stays in the outbox as STORED, readable at GET /api/v1/emails) when none is configured.
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../config.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** 'smtp' sends; 'store' keeps messages in the outbox only. */
  readonly kind: 'smtp' | 'store';
  /** Sends one message; resolves with the server's Message-ID, rejects when the server refused it. */
  send(mail: OutgoingMail): Promise<string | null>;
  close(): void;
}

class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private transport: Transporter;
  private from: string;
  constructor(config: MailConfig & { smtpUrl: string }) {
    // A pooled connection: a sweep's batch goes over one SMTP session. Timeouts keep a stuck server
    // from holding the sweep past the lease of the messages it claimed.
    this.transport = nodemailer.createTransport(config.smtpUrl, { pool: true, maxConnections: 2, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never);
    this.from = config.from;
  }
  async send(mail: OutgoingMail): Promise<string | null> {
    const info = await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    return info.messageId ?? null;
  }
  close() {
    this.transport.close();
  }
}

const storeOnly: Mailer = { kind: 'store', send: async () => null, close() {} };

export function createMailer(config: MailConfig): Mailer {
  return config.smtpUrl ? new SmtpMailer({ ...config, smtpUrl: config.smtpUrl }) : storeOnly;
}
