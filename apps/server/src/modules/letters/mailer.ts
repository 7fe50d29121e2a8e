import type { Letter } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { EventHub } from '../../realtime/domain-events.js';
import type { MailSender, MailTarget } from '../mail/sender.js';

const TEXTS = {
  zh: {
    subject: (name: string) => `新留言：${name}`,
    intro: '访客留下了一条留言：',
    name: '姓名',
    phone: '电话',
    email: '邮箱',
    time: '时间',
  },
  en: {
    subject: (name: string) => `New leave-message from ${name}`,
    intro: 'A visitor left a message:',
    name: 'Name',
    phone: 'Phone',
    email: 'Email',
    time: 'Time',
  },
};

/** The mail of a letter, as plain text: nothing in it is ever read as HTML. */
export function letterMail(letter: Letter, language: 'zh' | 'en'): { subject: string; text: string } {
  const t = TEXTS[language];
  const lines = [
    t.intro,
    '',
    `${t.name}: ${letter.name}`,
    ...(letter.phone ? [`${t.phone}: ${letter.phone}`] : []),
    ...(letter.email ? [`${t.email}: ${letter.email}`] : []),
    `${t.time}: ${letter.createdAt}`,
    '',
    letter.content,
  ];
  // A subject is one line: a name cannot add headers.
  return { subject: t.subject(letter.name.replace(/[\r\n]+/g, ' ')), text: lines.join('\n') };
}

/**
 * Mails each new leave-message to the configured addresses. A slow or failing mail server is logged, and
 * the letter stays stored. The target is read at each mail, so a change of the settings applies to the next one.
 */
export class LetterMailer {
  constructor(
    private readonly sender: MailSender,
    private readonly target: () => MailTarget | undefined,
    private readonly language: 'zh' | 'en',
    private readonly log: FastifyBaseLogger,
  ) {}

  subscribe(events: EventHub): void {
    events.on('letter.created', ({ letter }) => this.sender.track(this.send(letter)));
  }

  private async send(letter: Letter): Promise<void> {
    const target = this.target();
    if (!target) return;
    try {
      await this.sender.send(target, { to: target.to, ...letterMail(letter, this.language) });
      this.log.info({ letter: letter.id }, 'leave-message mailed');
    } catch (error) {
      this.log.warn({ err: error, letter: letter.id }, 'leave-message mail failed');
    }
  }
}
