// The outbox: a message is queued by a row written in the caller's database transaction (it exists
// if and only if the change it tells about commits), and sent later by the `send-emails` sweep
// (jobs/runner.ts), never inside a request. The sweep claims due rows with SKIP LOCKED and a lease
// (next_attempt_at pushed ahead), sends with no database transaction open, then records the
// outcome: SENT, a retry with backoff, or FAILED after the last attempt. A worker that dies
// mid-send leaves its rows to be claimed again when the lease ends (at-least-once, as SMTP is).
import type { Executor, Db } from '../db/index.ts';
import { uuidv7 } from '../db/ids.ts';
import type { Scope } from '../http/scope.ts';
import type { FastifyBaseLogger } from 'fastify';
import { render, type MailMessage, type Rendered } from './templates.ts';
import { ACCOUNT_TEMPLATES, type AccountMessage } from './account-templates.ts';
import type { Mailer } from './transport.ts';

/** Waits before retry n (1-based): 1 min, 5 min, 30 min, 2 h, 6 h; then the message is FAILED. */
export const MAIL_RETRY_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
/** How long a claimed message is left to its worker before another may claim it. */
const LEASE_MS = 120_000;

export interface MailDeps {
  db: Db;
  mailer: Mailer;
  log: FastifyBaseLogger;
}

/** Queues a message to `to` in the caller's transaction; returns its id. */
export async function queueEmail(db: Executor, scope: Scope, to: string, message: MailMessage | AccountMessage, relatedId: string | null, now: Date): Promise<string> {
  return queueRendered(db, scope, to, message.kind, render(message), relatedId, now);
}

/** Queues an already rendered message (`template` names its kind in the log) in the caller's transaction. */
export async function queueRendered(db: Executor, scope: Scope, to: string, template: string, { subject, text, html }: Rendered, relatedId: string | null, now: Date): Promise<string> {
  const id = uuidv7(now.getTime());
  await db
    .insertInto('emails')
    .values({
      id,
      user_id: scope.userId,
      livemode: scope.livemode,
      template,
      to_address: to,
      subject,
      text_body: text,
      html_body: html,
      status: 'QUEUED',
      next_attempt_at: now,
      related_id: relatedId,
      created_at: now,
    })
    .execute();
  return id;
}

/** Sends up to `batch` due messages; returns how many it claimed. */
export async function sendDueEmails(deps: MailDeps, now: Date, batch = 50): Promise<number> {
  const claimed = await deps.db
    .updateTable('emails')
    .set((eb) => ({ next_attempt_at: new Date(now.getTime() + LEASE_MS), attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', (eb) =>
      eb.selectFrom('emails').select('id').where('status', '=', 'QUEUED').where('next_attempt_at', '<=', now).orderBy('next_attempt_at').limit(batch).forUpdate().skipLocked(),
    )
    .returning(['id', 'template', 'to_address', 'subject', 'text_body', 'html_body', 'attempts'])
    .execute();
  for (const m of claimed) {
    try {
      const messageId = await deps.mailer.send({ to: m.to_address, subject: m.subject, text: m.text_body, html: m.html_body });
      const status = deps.mailer.kind === 'smtp' ? 'SENT' : 'STORED';
      // A message carrying an account secret is not kept once a server took it.
      const blank = deps.mailer.kind === 'smtp' && ACCOUNT_TEMPLATES.includes(m.template) ? { text_body: '', html_body: '' } : {};
      await deps.db.updateTable('emails').set({ status, message_id: messageId, sent_at: now, next_attempt_at: null, last_error: null, ...blank }).where('id', '=', m.id).execute();
    } catch (err) {
      const last = m.attempts > MAIL_RETRY_MS.length;
      const error = String((err as Error).message ?? err).slice(0, 500);
      deps.log.warn({ emailId: m.id, attempt: m.attempts, err: error }, last ? 'e-mail: giving up after the last attempt' : 'e-mail: send failed; will retry');
      await deps.db
        .updateTable('emails')
        .set(last ? { status: 'FAILED', next_attempt_at: null, last_error: error } : { next_attempt_at: new Date(now.getTime() + MAIL_RETRY_MS[m.attempts - 1]), last_error: error })
        .where('id', '=', m.id)
        .execute();
    }
  }
  return claimed.length;
}
