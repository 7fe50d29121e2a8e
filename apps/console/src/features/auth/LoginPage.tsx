import { LockOutlined, MobileOutlined, SafetyCertificateOutlined, UserOutlined } from '@ant-design/icons';
import { MIN_PASSWORD_LENGTH } from '@parley/protocol';
import { Button, Form, Input, Tabs } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { toastSuccess } from '../../lib/feedback';
import { useSession } from '../../stores/session';
import { AuthShell as AuthLayout } from './AuthShell';
import { login, sendCode, socialLogin } from './api';

const PHONE = /^1\d{10}$/;
const CODE_WAIT_SECONDS = 60;

/** Only paths inside the console are followed after login, never another site. */
export function safeRedirect(value: string | null): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/login')) return '/';
  return value;
}

function AccountForm({ onToken }: { onToken: (token: string) => void }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  return (
    <Form
      size="large"
      layout="vertical"
      requiredMark={false}
      onFinish={async (values: { username: string; password: string }) => {
        setBusy(true);
        try {
          onToken(await login(values.username.trim(), values.password));
        } catch {
          // The HTTP client has shown the server's message.
        } finally {
          setBusy(false);
        }
      }}
    >
      <Form.Item name="username" rules={[{ required: true, whitespace: true, message: t('auth.usernameRequired') }]}>
        <Input prefix={<UserOutlined />} placeholder={t('auth.username')} autoComplete="username" data-testid="login-username" />
      </Form.Item>
      <Form.Item
        name="password"
        rules={[{ required: true, min: MIN_PASSWORD_LENGTH, message: t('auth.passwordMin', { min: MIN_PASSWORD_LENGTH }) }]}
      >
        <Input.Password
          prefix={<LockOutlined />}
          placeholder={t('auth.password')}
          autoComplete="current-password"
          data-testid="login-password"
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={busy} data-testid="login-submit">
        {t('auth.login')}
      </Button>
    </Form>
  );
}

function PhoneForm({ onToken }: { onToken: (token: string) => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ phone: string; code: string }>();
  const [wait, setWait] = useState(0);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (wait <= 0) return;
    const timer = setTimeout(() => setWait(wait - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);

  const requestCode = async () => {
    const { phone } = await form.validateFields(['phone']);
    try {
      await sendCode(phone);
      toastSuccess(t('auth.codeSent'));
      setWait(CODE_WAIT_SECONDS);
    } catch {
      // The HTTP client has shown the server's message.
    }
  };

  return (
    <Form
      form={form}
      size="large"
      layout="vertical"
      requiredMark={false}
      onFinish={async (values) => {
        setBusy(true);
        try {
          onToken(await socialLogin(values.code));
        } catch {
          // The HTTP client has shown the server's message.
        } finally {
          setBusy(false);
        }
      }}
    >
      <Form.Item
        name="phone"
        rules={[
          { required: true, message: t('auth.phoneRequired') },
          { pattern: PHONE, message: t('auth.phoneInvalid') },
        ]}
      >
        <Input prefix={<MobileOutlined />} placeholder={t('auth.phone')} maxLength={11} inputMode="numeric" autoComplete="tel" />
      </Form.Item>
      <Form.Item name="code" rules={[{ required: true, message: t('auth.codeRequired') }]}>
        <Input
          prefix={<SafetyCertificateOutlined />}
          placeholder={t('auth.code')}
          maxLength={8}
          inputMode="numeric"
          autoComplete="one-time-code"
          suffix={
            <Button type="link" size="small" disabled={wait > 0} onClick={requestCode}>
              {wait > 0 ? t('auth.codeWait', { seconds: wait }) : t('auth.sendCode')}
            </Button>
          }
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={busy}>
        {t('auth.login')}
      </Button>
    </Form>
  );
}

export default function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = useSession((state) => state.token);
  const setToken = useSession((state) => state.setToken);
  const redirect = safeRedirect(params.get('redirect'));
  const [signedIn, setSignedIn] = useState(false);

  if (token && !signedIn) return <Navigate to="/" replace />;

  const onToken = (value: string) => {
    setSignedIn(true);
    setToken(value);
    toastSuccess(t('auth.welcome'));
    navigate(redirect, { replace: true });
  };

  return (
    <AuthLayout>
      <h2 className="auth-title">{t('auth.loginTitle')}</h2>
      <p className="auth-subtitle">{t('auth.loginSubtitle')}</p>
      <Tabs
        items={[
          { key: 'account', label: t('auth.tabAccount'), children: <AccountForm onToken={onToken} /> },
          { key: 'phone', label: t('auth.tabPhone'), children: <PhoneForm onToken={onToken} /> },
        ]}
      />
      <div className="auth-links">
        <Link to="/register">{t('auth.toRegister')}</Link>
        <Link to="/authLogin">{t('auth.toSocial')}</Link>
      </div>
    </AuthLayout>
  );
}
