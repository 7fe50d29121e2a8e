import { ConfigProvider, message, notification } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';
import type { NotificationInstance } from 'antd/es/notification/interface';
import { useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { useSettings } from '../stores/settings';
import { useAntdTheme } from './antdConfig';
import { loadAntdLocale, useAntdLocale } from './antdLocale';

export interface FeedbackApis {
  message: MessageInstance;
  notification: NotificationInstance;
}

function Holders({ onReady }: { onReady: (apis: FeedbackApis) => void }) {
  const [messageApi, messageHolder] = message.useMessage();
  const [notificationApi, notificationHolder] = notification.useNotification();
  useEffect(() => onReady({ message: messageApi, notification: notificationApi }), [messageApi, notificationApi, onReady]);
  return (
    <>
      {messageHolder}
      {notificationHolder}
    </>
  );
}

function FeedbackHost({ onReady }: { onReady: (apis: FeedbackApis) => void }) {
  return (
    <ConfigProvider theme={useAntdTheme()} locale={useAntdLocale()}>
      <Holders onReady={onReady} />
    </ConfigProvider>
  );
}

/**
 * Toasts and notices live in a small React root of their own, mounted on first use: code outside React
 * (the HTTP client, the service worker) can show them on any page, the login page included, without
 * that page loading antd up front.
 */
export async function mountFeedback(): Promise<FeedbackApis> {
  await loadAntdLocale(useSettings.getState().language);
  return new Promise((resolve) => {
    const container = document.createElement('div');
    container.className = 'feedback-root';
    document.body.appendChild(container);
    createRoot(container).render(<FeedbackHost onReady={resolve} />);
  });
}
