import type { Lang } from '../../lib/i18n.js';

/** What the confirmation mail, the unsubscribe footer of every mail and the link pages say, in zh and en. */
export const CONSENT_TEXTS: Record<
  Lang,
  {
    confirmSubject: (site: string) => string;
    confirmIntro: (site: string) => string;
    confirmAction: string;
    /** How long the link lives, in whole hours, or in minutes under an hour. */
    confirmExpiry: (amount: number, unit: 'hours' | 'minutes') => string;
    confirmNotYou: string;
    stopLine: (site: string) => string;
    pageConfirmTitle: string;
    pageConfirmText: (site: string) => string;
    pageConfirmButton: string;
    pageConfirmedTitle: string;
    pageConfirmedText: (site: string) => string;
    pageInvalidTitle: string;
    pageInvalidText: string;
    pageStopTitle: string;
    pageStopText: (site: string) => string;
    pageStopButton: string;
    pageStoppedTitle: string;
    pageStoppedText: (site: string) => string;
  }
> = {
  zh: {
    confirmSubject: (site) => `请确认接收 ${site} 的对话记录邮件`,
    confirmIntro: (site) => `有人（希望是您本人）在 ${site} 的在线客服中留下了这个邮箱地址，以便接收对话记录。`,
    confirmAction: '如果是您本人，请打开下面的链接并点击“确认”，之后对话结束时我们才会把对话记录发到这里：',
    confirmExpiry: (amount, unit) => `链接在 ${amount} ${unit === 'hours' ? '小时' : '分钟'}内有效，只能使用一次。`,
    confirmNotYou: '如果不是您，请忽略这封邮件：不确认就不会再收到对话记录。',
    stopLine: (site) => `不想再收到 ${site} 的任何邮件？打开此链接即可退订：`,
    pageConfirmTitle: '确认邮箱地址',
    pageConfirmText: (site) => `确认后，您与 ${site} 在线客服的对话结束时，对话记录会发送到这个邮箱。`,
    pageConfirmButton: '确认',
    pageConfirmedTitle: '已确认',
    pageConfirmedText: (site) => `谢谢。您与 ${site} 的对话结束时，对话记录会发送到这个邮箱。`,
    pageInvalidTitle: '链接已失效',
    pageInvalidText: '这个链接已过期、已被使用或不存在。如仍需要对话记录，请在对话窗口中重新填写邮箱。',
    pageStopTitle: '退订邮件',
    pageStopText: (site) => `退订后，${site} 不会再向这个邮箱发送任何邮件。`,
    pageStopButton: '退订',
    pageStoppedTitle: '已退订',
    pageStoppedText: (site) => `${site} 不会再向这个邮箱发送任何邮件。`,
  },
  en: {
    confirmSubject: (site) => `Confirm transcript mails from ${site}`,
    confirmIntro: (site) => `Someone (we hope you) gave this address in ${site}'s chat, to receive conversation transcripts.`,
    confirmAction:
      'If it was you, open the link below and press "Confirm"; only then is a transcript mailed here when a conversation ends:',
    confirmExpiry: (amount, unit) => `The link works once, within ${amount} ${unit}.`,
    confirmNotYou: 'If it was not you, ignore this mail: without a confirmation no transcript is sent.',
    stopLine: (site) => `To never get mail from ${site} again, open this link:`,
    pageConfirmTitle: 'Confirm your address',
    pageConfirmText: (site) =>
      `Once you confirm, the transcript of each of your chats with ${site} is mailed to this address when it ends.`,
    pageConfirmButton: 'Confirm',
    pageConfirmedTitle: 'Confirmed',
    pageConfirmedText: (site) => `Thank you. Transcripts of your chats with ${site} will be mailed to this address when they end.`,
    pageInvalidTitle: 'This link no longer works',
    pageInvalidText: 'It has expired, was already used, or never existed. To get transcripts, give your address again in the chat window.',
    pageStopTitle: 'Unsubscribe',
    pageStopText: (site) => `Once you unsubscribe, ${site} sends no more mail of any kind to this address.`,
    pageStopButton: 'Unsubscribe',
    pageStoppedTitle: 'Unsubscribed',
    pageStoppedText: (site) => `${site} will send no more mail to this address.`,
  },
};
