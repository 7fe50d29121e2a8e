import { Divider, Drawer } from 'antd';
import { useTranslation } from 'react-i18next';
import { PushSection } from '../push/PushSection';
import { PersonalForm } from './PersonalForm';
import { SessionsSection } from './Sessions';
import { TwoFactorSection } from './TwoFactor';
import './personal.css';

/**
 * The personal centre for agents whose role may not open its page: the same form and sections, from the
 * avatar menu. While the password must be changed it cannot be closed.
 */
export function PersonalDrawer({ open, onClose, locked = false }: { open: boolean; onClose: () => void; locked?: boolean }) {
  const { t } = useTranslation();
  return (
    <Drawer
      title={t('personal.title')}
      open={open}
      onClose={onClose}
      closable={!locked}
      maskClosable={!locked}
      keyboard={!locked}
      size={420}
      destroyOnHidden
      data-testid="personal-drawer"
    >
      <PersonalForm onSaved={onClose} />
      <Divider titlePlacement="start">{t('account.twoFactor')}</Divider>
      <TwoFactorSection />
      <Divider titlePlacement="start">{t('account.sessions')}</Divider>
      <SessionsSection />
      <Divider titlePlacement="start">{t('push.title')}</Divider>
      <div data-testid="personal-push">
        <PushSection />
      </div>
    </Drawer>
  );
}
