import { BorderOutlined, CloseOutlined, MinusOutlined, SwitcherOutlined } from '@ant-design/icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** What a desktop shell exposes to the page; absent in a browser. */
interface DesktopBridge {
  minimize(): void;
  maximize(): void;
  unmaximize(): void;
  close(): void;
  show?(): void;
}

export function desktopBridge(): DesktopBridge | undefined {
  return (window as Window & { parleyDesktop?: DesktopBridge }).parleyDesktop;
}

/** Minimize, maximize/restore and close, only when run inside a desktop shell (seed §2). */
export function DesktopControls() {
  const { t } = useTranslation();
  const [maximized, setMaximized] = useState(false);
  const bridge = desktopBridge();
  if (!bridge) return null;
  return (
    <div className="desktop-controls">
      <button type="button" aria-label={t('desktop.minimize')} onClick={() => bridge.minimize()}>
        <MinusOutlined />
      </button>
      <button
        type="button"
        aria-label={maximized ? t('desktop.restore') : t('desktop.maximize')}
        onClick={() => {
          if (maximized) bridge.unmaximize();
          else bridge.maximize();
          setMaximized(!maximized);
        }}
      >
        {maximized ? <SwitcherOutlined /> : <BorderOutlined />}
      </button>
      <button type="button" aria-label={t('desktop.close')} onClick={() => bridge.close()}>
        <CloseOutlined />
      </button>
    </div>
  );
}
