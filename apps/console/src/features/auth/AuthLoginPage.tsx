import { GithubOutlined, QqOutlined, WechatOutlined } from '@ant-design/icons';
import { Button, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useSession } from '../../stores/session';
import { AuthShell } from './AuthShell';
import { socialLogin } from './api';

/**
 * Third-party sign-in. The provider hands a code to /callback; here the console asks the server
 * whether a provider is configured at all, so the user hears the server's answer rather than silence.
 */
export default function AuthLoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const setToken = useSession((state) => state.setToken);
  const [busy, setBusy] = useState('');
  const start = async (provider: string) => {
    setBusy(provider);
    try {
      setToken(await socialLogin(provider));
      navigate('/', { replace: true });
    } catch {
      // The HTTP client has shown the server's message.
    } finally {
      setBusy('');
    }
  };
  const providers = [
    { key: 'wechat', icon: <WechatOutlined /> },
    { key: 'qq', icon: <QqOutlined /> },
    { key: 'github', icon: <GithubOutlined /> },
  ];
  return (
    <AuthShell>
      <h2 className="auth-title">{t('auth.socialTitle')}</h2>
      <p className="auth-subtitle">{t('auth.socialSubtitle')}</p>
      <Space direction="vertical" style={{ width: '100%' }} size="middle">
        {providers.map((provider) => (
          <Button
            key={provider.key}
            size="large"
            block
            icon={provider.icon}
            loading={busy === provider.key}
            onClick={() => start(provider.key)}
          >
            {t(`auth.provider.${provider.key}`)}
          </Button>
        ))}
      </Space>
      <div className="auth-links">
        <Link to="/login">{t('auth.toLogin')}</Link>
      </div>
    </AuthShell>
  );
}
