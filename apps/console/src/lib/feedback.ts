import type { MessageInstance } from 'antd/es/message/interface';
import type { NotificationInstance } from 'antd/es/notification/interface';
import { settings } from './settings';

/** antd's themed message and notification APIs, registered by the app root for code outside React. */
let messageApi: MessageInstance | null = null;
let notificationApi: NotificationInstance | null = null;

export function registerFeedback(message: MessageInstance, notification: NotificationInstance): void {
  messageApi = message;
  notificationApi = notification;
}

export function toastError(content: string): void {
  messageApi?.error({ content, duration: settings.messageDuration / 1000 });
}

export function toastSuccess(content: string): void {
  messageApi?.success({ content, duration: settings.messageDuration / 1000 });
}

export function notify(title: string, description: string, seconds: number): void {
  notificationApi?.info({ title, description, duration: seconds });
}

/** A loading toast that stays until the returned function closes it. */
export function toastLoading(content: string): () => void {
  const close = messageApi?.loading({ content, duration: 0 });
  return () => close?.();
}
