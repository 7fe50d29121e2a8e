import { CopyOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Flex, Form, Input, Skeleton, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';
import { personalKey, usePersonal } from './queries';

const SIX_DIGITS = /^\d{6}$/;

/** A seed's key as a person types it: groups of four. */
function grouped(secret: string): string {
  return secret.match(/.{1,4}/g)?.join(' ') ?? secret;
}

/** The recovery codes, shown once when two-factor sign-in is turned on, with a way to copy them all. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation();
  const copy = async () => {
    await navigator.clipboard.writeText(codes.join('\n'));
    toastSuccess(t('account.copied'));
  };
  return (
    <Alert
      type="warning"
      showIcon
      title={t('account.recoveryTitle')}
      data-testid="mfa-recovery-codes"
      description={
        <Flex vertical gap={12}>
          <span>{t('account.recoveryHint')}</span>
          <ul className="account-recovery-codes">
            {codes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
          <Space wrap>
            <Button icon={<CopyOutlined />} onClick={copy} autoFocus>
              {t('account.copyAll')}
            </Button>
            <Button type="primary" onClick={onDone} data-testid="mfa-recovery-done">
              {t('account.recoverySaved')}
            </Button>
          </Space>
        </Flex>
      }
    />
  );
}

/**
 * Setting up two-factor sign-in: a new seed as a QR code and as a key to type, then a code from the app
 * confirms it. `onEnabled` receives the recovery codes, which the server answers this once.
 */
export function MfaEnrolment({ onEnabled, onCancel }: { onEnabled: (codes: string[]) => void; onCancel?: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ code: string }>();
  // One seed per visit of this step: each set-up call replaces the seed waiting for its code, so a
  // second call (a re-render, a refocused window) would leave the QR code shown out of date.
  const start = useQuery({
    queryKey: ['personal', 'mfa', 'setup'],
    queryFn: () => call('POST /api/personal/mfa/setup'),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const setup = start.data;
  const enable = useMutation({
    mutationFn: (code: string) => call('POST /api/personal/mfa/enable', { code }),
    onSuccess: (answer) => onEnabled(answer.recoveryCodes),
    onError: () => form.setFieldValue('code', ''),
  });

  if (!setup) {
    return start.isError ? (
      <Space wrap>
        <Button onClick={() => void start.refetch()}>{t('common.retry')}</Button>
        {onCancel ? <Button onClick={onCancel}>{t('common.cancel')}</Button> : null}
      </Space>
    ) : (
      <Skeleton active />
    );
  }
  return (
    <Flex vertical gap={12} className="account-enrolment" data-testid="mfa-enrolment">
      <Typography.Text>{t('account.scan')}</Typography.Text>
      <img className="account-qr" src={setup.qrCode} alt={t('account.qrAlt')} width={180} height={180} data-testid="mfa-qr" />
      <Typography.Text type="secondary">{t('account.manual')}</Typography.Text>
      <Typography.Text code copyable={{ text: setup.secret, tooltips: [t('account.copy'), t('account.copied')] }} data-testid="mfa-secret">
        {grouped(setup.secret)}
      </Typography.Text>
      <Form<{ code: string }> form={form} layout="vertical" onFinish={(values) => enable.mutate(values.code.trim())}>
        <Form.Item
          name="code"
          label={t('account.confirmCode')}
          rules={[{ required: true, pattern: SIX_DIGITS, message: t('account.codeInvalid') }]}
        >
          <Input
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            placeholder={t('account.codePlaceholder')}
            className="account-code-input"
            data-testid="mfa-enable-code"
          />
        </Form.Item>
        <Space wrap>
          <Button type="primary" htmlType="submit" loading={enable.isPending} data-testid="mfa-enable">
            {t('account.turnOn')}
          </Button>
          {onCancel ? <Button onClick={onCancel}>{t('common.cancel')}</Button> : null}
        </Space>
      </Form>
    </Flex>
  );
}

/** The personal page's two-factor section: its state, setting it up, the recovery codes once, turning it off. */
export function TwoFactorSection() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const personal = usePersonal();
  const [enrolling, setEnrolling] = useState(false);
  const [codes, setCodes] = useState<string[]>();
  const [disabling, setDisabling] = useState(false);
  const [form] = Form.useForm<{ code: string }>();
  const disable = useMutation({
    mutationFn: (code: string) => call('POST /api/personal/mfa/disable', { code }),
    onSuccess: async () => {
      setDisabling(false);
      form.resetFields();
      toastSuccess(t('account.turnedOff'));
      await queryClient.invalidateQueries({ queryKey: personalKey });
    },
    onError: () => form.setFieldValue('code', ''),
  });

  if (!personal.data) return <Skeleton active />;
  const { mfa } = personal.data;

  if (codes) {
    return (
      <RecoveryCodes
        codes={codes}
        onDone={() => {
          setCodes(undefined);
          void queryClient.invalidateQueries({ queryKey: personalKey });
        }}
      />
    );
  }

  return (
    <Flex vertical gap={12} data-testid="mfa-section">
      <Space wrap>
        <Tag color={mfa.enabled ? 'green' : 'default'} data-testid="mfa-state">
          {t(mfa.enabled ? 'account.on' : 'account.off')}
        </Tag>
        <Typography.Text type="secondary">{t(mfa.enabled ? 'account.twoFactorOn' : 'account.twoFactorOff')}</Typography.Text>
      </Space>
      {mfa.enabled ? (
        <>
          <Typography.Text type={mfa.recoveryCodesLeft <= 2 ? 'warning' : 'secondary'}>
            {t('account.recoveryLeft', { count: mfa.recoveryCodesLeft })}
          </Typography.Text>
          {disabling ? (
            <Form<{ code: string }> form={form} layout="vertical" onFinish={(values) => disable.mutate(values.code.trim())}>
              <Form.Item
                name="code"
                label={t('account.turnOffHint')}
                rules={[{ required: true, whitespace: true, message: t('account.codeInvalid') }]}
              >
                <Input
                  autoComplete="one-time-code"
                  maxLength={24}
                  placeholder={t('account.codeOrRecovery')}
                  className="account-code-input"
                  data-testid="mfa-disable-code"
                />
              </Form.Item>
              <Space wrap>
                <Button danger htmlType="submit" loading={disable.isPending} data-testid="mfa-disable-confirm">
                  {t('account.turnOff')}
                </Button>
                <Button onClick={() => setDisabling(false)}>{t('common.cancel')}</Button>
              </Space>
            </Form>
          ) : (
            <div>
              <Button danger onClick={() => setDisabling(true)} data-testid="mfa-disable">
                {t('account.turnOff')}
              </Button>
            </div>
          )}
        </>
      ) : enrolling ? (
        <MfaEnrolment
          onEnabled={(recoveryCodes) => {
            setEnrolling(false);
            setCodes(recoveryCodes);
            toastSuccess(t('account.turnedOn'));
          }}
          onCancel={() => setEnrolling(false)}
        />
      ) : (
        <div>
          <Button type="primary" icon={<SafetyCertificateOutlined />} onClick={() => setEnrolling(true)} data-testid="mfa-start">
            {t('account.setUp')}
          </Button>
        </div>
      )}
    </Flex>
  );
}
