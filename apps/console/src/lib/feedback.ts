import { createElement } from 'react';
import type { FeedbackApis } from '../app/FeedbackRoot';
import { settings } from './settings';

/** antd's themed message and notification APIs for code outside React, loaded on first use. */
let ready: Promise<FeedbackApis> | null = null;

function feedback(): Promise<FeedbackApis> {
  ready ??= import('../app/FeedbackRoot')
    .then((module) => module.mountFeedback())
    .catch((error: unknown) => {
      // A failed chunk load (e.g. offline) must not stop the next toast from trying again.
      ready = null;
      throw error;
    });
  return ready;
}

function show(action: (apis: FeedbackApis) => void): void {
  feedback().then(action, () => undefined);
}

export function toastError(content: string): void {
  show((apis) => apis.message.error({ content, duration: settings.messageDuration / 1000 }));
}

export function toastSuccess(content: string): void {
  show((apis) => apis.message.success({ content, duration: settings.messageDuration / 1000 }));
}

export function notify(title: string, description: string, seconds: number): void {
  show((apis) => apis.notification.info({ title, description, duration: seconds }));
}

/** A notification with one action (open what it tells of); it stays until closed or acted on. */
export function notifyAction(title: string, description: string, action: { label: string; onClick(): void }): void {
  const key = `action-${Date.now()}-${Math.random()}`;
  // antd's Button comes with the notification's own lazy chunk, not with this module.
  show(
    (apis) =>
      void import('antd').then(({ Button }) =>
        apis.notification.info({
          key,
          title,
          description,
          duration: 0,
          actions: createElement(
            Button,
            {
              type: 'primary',
              size: 'small',
              'data-testid': 'notification-action',
              onClick: () => {
                apis.notification.destroy(key);
                action.onClick();
              },
            },
            action.label,
          ),
        }),
      ),
  );
}

/** A loading toast that stays until the returned function closes it. */
export function toastLoading(content: string): () => void {
  let closed = false;
  let close: (() => void) | undefined;
  show((apis) => {
    if (!closed) close = apis.message.loading({ content, duration: 0 });
  });
  return () => {
    closed = true;
    close?.();
  };
}
