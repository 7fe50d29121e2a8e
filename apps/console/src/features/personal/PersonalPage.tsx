import { Card, Flex } from 'antd';
import { useTranslation } from 'react-i18next';
import { PushSection } from '../push/PushSection';
import { PersonalForm } from './PersonalForm';
import { SessionsSection } from './Sessions';
import { TwoFactorSection } from './TwoFactor';
import './personal.css';

/** `/personal/personal`: the personal centre (seed §2), with the account's two-factor sign-in and sessions. */
export default function PersonalPage() {
  const { t } = useTranslation();
  return (
    <Flex gap={16} wrap align="flex-start" className="personal-page">
      <Card title={t('personal.title')} className="personal-card">
        <PersonalForm />
      </Card>
      <Flex vertical gap={16} className="personal-security">
        <Card title={t('account.twoFactor')} data-testid="personal-two-factor">
          <TwoFactorSection />
        </Card>
        <Card title={t('account.sessions')} data-testid="personal-sessions">
          <SessionsSection />
        </Card>
        <Card title={t('push.title')} data-testid="personal-push">
          <PushSection />
        </Card>
      </Flex>
    </Flex>
  );
}
