import { useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { endSession } from '../../lib/request';
import { AuthShell } from '../auth/AuthShell';
import { logout } from '../auth/api';
import { userInfoKey } from '../auth/queries';
import { MfaEnrolment, RecoveryCodes } from './TwoFactor';
import './personal.css';

/**
 * The step between sign-in and the console for an Admin who must use two-factor sign-in
 * (REQUIRE_ADMIN_MFA) and has not set it up: the server answers nothing else until it is on.
 */
export default function MfaSetupStep() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [codes, setCodes] = useState<string[]>();
  const signOut = async () => {
    await logout().catch(() => undefined);
    endSession();
  };
  return (
    <AuthShell>
      <Flex vertical gap={12} data-testid="mfa-required-step">
        <h2 className="auth-title">{t('account.mfaRequiredTitle')}</h2>
        <Typography.Text type="secondary">{t('account.mfaRequired')}</Typography.Text>
        {codes ? (
          <RecoveryCodes codes={codes} onDone={() => void queryClient.invalidateQueries({ queryKey: userInfoKey })} />
        ) : (
          <MfaEnrolment onEnabled={setCodes} />
        )}
        <div>
          <Button type="link" onClick={signOut} className="account-sign-out">
            {t('account.signOut')}
          </Button>
        </div>
      </Flex>
    </AuthShell>
  );
}
