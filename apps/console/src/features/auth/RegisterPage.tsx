import { LockOutlined, SmileOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Form, Input, Result } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { settings } from '../../lib/settings';
import { AuthShell } from './AuthShell';
import { register } from './api';

interface Values {
  username: string;
  nickname?: string;
  password: string;
  confirm: string;
}

export default function RegisterPage() {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  return (
    <AuthShell>
      {done ? (
        <Result
          status="success"
          title={t('auth.registered')}
          subTitle={t('auth.registeredHint')}
          extra={
            <Link to="/login">
              <Button type="primary">{t('auth.toLogin')}</Button>
            </Link>
          }
        />
      ) : (
        <>
          <h2 className="auth-title">{t('auth.registerTitle')}</h2>
          <p className="auth-subtitle">{t('auth.registerSubtitle')}</p>
          <Form
            size="large"
            layout="vertical"
            requiredMark={false}
            onFinish={async (values: Values) => {
              setBusy(true);
              try {
                await register({
                  username: values.username.trim(),
                  password: values.password,
                  nickname: values.nickname?.trim() || undefined,
                });
                setDone(true);
              } catch {
                // The HTTP client has shown the server's message.
              } finally {
                setBusy(false);
              }
            }}
          >
            <Form.Item name="username" rules={[{ required: true, whitespace: true, message: t('auth.usernameRequired') }]}>
              <Input prefix={<UserOutlined />} placeholder={t('auth.username')} autoComplete="username" />
            </Form.Item>
            <Form.Item name="nickname">
              <Input prefix={<SmileOutlined />} placeholder={t('auth.nickname')} autoComplete="nickname" />
            </Form.Item>
            <Form.Item
              name="password"
              rules={[
                {
                  required: true,
                  min: settings.minNewPasswordLength,
                  message: t('auth.passwordMin', { min: settings.minNewPasswordLength }),
                },
              ]}
            >
              <Input.Password prefix={<LockOutlined />} placeholder={t('auth.password')} autoComplete="new-password" />
            </Form.Item>
            <Form.Item
              name="confirm"
              dependencies={['password']}
              rules={[
                { required: true, message: t('auth.confirmRequired') },
                ({ getFieldValue }) => ({
                  validator: (_, value) =>
                    value === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('auth.confirmMismatch'))),
                }),
              ]}
            >
              <Input.Password prefix={<LockOutlined />} placeholder={t('auth.confirm')} autoComplete="new-password" />
            </Form.Item>
            <Button type="primary" htmlType="submit" block loading={busy}>
              {t('auth.register')}
            </Button>
          </Form>
          <div className="auth-links">
            <Link to="/login">{t('auth.haveAccount')}</Link>
          </div>
        </>
      )}
    </AuthShell>
  );
}
