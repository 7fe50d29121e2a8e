import { UploadOutlined, UserOutlined } from '@ant-design/icons';
import { MIN_PASSWORD_LENGTH, type Personal } from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Avatar, Button, Divider, Form, Input, Skeleton, Space, Switch, Upload } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { toastError, toastSuccess } from '../../lib/feedback';
import { endSession } from '../../lib/request';
import { logout } from '../auth/api';
import { userInfoKey, useUserInfo } from '../auth/queries';
import { uploadFile } from '../workbench/api';
import { personalKey } from './queries';

interface Values {
  nickname: string;
  avatar: string;
  notify: Personal['notify'];
  email: string;
  oldPassword?: string;
  password?: string;
  confirm?: string;
}

/** The agent's own profile: name, picture, notifications and password. The page and the avatar menu's drawer share it. */
export function PersonalForm({ onSaved }: { onSaved?: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [uploading, setUploading] = useState(false);
  const profile = useQuery({ queryKey: personalKey, queryFn: () => call('GET /api/personal') });
  const avatar = Form.useWatch('avatar', form);
  const mustChange = useUserInfo().data?.passwordChangeRequired === true;
  const passwordSection = useRef<HTMLDivElement>(null);
  const loaded = Boolean(profile.data);
  // Sent here to change a password that is too short: the form opens at the password fields.
  useEffect(() => {
    if (mustChange && loaded) passwordSection.current?.scrollIntoView({ block: 'start' });
  }, [mustChange, loaded]);

  const save = useMutation({
    mutationFn: ({ confirm: _confirm, ...values }: Values) =>
      call('POST /api/personal', {
        nickname: values.nickname,
        avatar: values.avatar,
        notify: values.notify,
        email: values.email.trim(),
        ...(values.password ? { password: values.password, oldPassword: values.oldPassword ?? '' } : {}),
      }),
    onSuccess: async (saved, values) => {
      if (values.password) {
        // The server ended every session of the account: the agent signs in again with the new password.
        toastSuccess(t('personal.passwordChanged'));
        endSession();
        window.location.reload();
        return;
      }
      queryClient.setQueryData(personalKey, saved);
      await queryClient.invalidateQueries({ queryKey: userInfoKey });
      form.setFieldsValue({ oldPassword: '', password: '', confirm: '' });
      toastSuccess(t('common.saved'));
      onSaved?.();
    },
  });

  const upload = async (file: File) => {
    setUploading(true);
    try {
      const uploaded = await uploadFile(file);
      form.setFieldValue('avatar', uploaded.url);
    } catch (error) {
      toastError(error instanceof Error ? error.message : t('personal.uploadFailed'));
    } finally {
      setUploading(false);
    }
  };

  if (!profile.data) return <Skeleton active />;
  const { username, mfa: _mfa, ...initial } = profile.data;
  return (
    <Form<Values>
      form={form}
      layout="vertical"
      className="personal-form"
      initialValues={initial}
      onFinish={(values) => save.mutate(values)}
      data-testid="personal-form"
    >
      <Form.Item label={t('personal.username')} htmlFor="personal-username">
        <Input id="personal-username" value={username} disabled />
      </Form.Item>
      <Form.Item label={t('personal.avatar')}>
        <Space>
          <Avatar size={64} src={avatar || undefined} icon={<UserOutlined />} />
          <Upload
            accept="image/png,image/jpeg,image/gif,image/webp"
            showUploadList={false}
            beforeUpload={(file) => {
              void upload(file);
              return false;
            }}
          >
            <Button icon={<UploadOutlined />} loading={uploading}>
              {t('personal.upload')}
            </Button>
          </Upload>
          {avatar ? <Button onClick={() => form.setFieldValue('avatar', '')}>{t('personal.removeAvatar')}</Button> : null}
        </Space>
      </Form.Item>
      <Form.Item name="avatar" hidden>
        <Input />
      </Form.Item>
      <Form.Item name="nickname" label={t('personal.nickname')} rules={[{ required: true, whitespace: true, max: 64 }]}>
        <Input maxLength={64} data-testid="personal-nickname" />
      </Form.Item>

      <Divider titlePlacement="start">{t('personal.notifications')}</Divider>
      <Form.Item name={['notify', 'newUser']} label={t('personal.notifyNewUser')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name={['notify', 'newMsg']} label={t('personal.notifyNewMsg')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name={['notify', 'transfer']} label={t('personal.notifyTransfer')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name={['notify', 'letter']} label={t('personal.notifyLetter')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name={['notify', 'sound']} label={t('personal.notifySound')} valuePropName="checked">
        <Switch />
      </Form.Item>

      <Form.Item
        name="email"
        label={t('account.email')}
        extra={t('account.emailHint')}
        rules={[{ type: 'email', message: t('account.emailInvalid') }]}
      >
        <Input type="email" maxLength={254} autoComplete="email" data-testid="personal-email" />
      </Form.Item>

      <div ref={passwordSection}>
        <Divider titlePlacement="start">{t('personal.changePassword')}</Divider>
      </div>
      {mustChange ? (
        <Alert
          type="warning"
          showIcon
          className="personal-must-change"
          title={t('account.passwordRequiredTitle')}
          description={t('account.passwordRequired', { min: MIN_PASSWORD_LENGTH })}
          // Until it is changed nothing else opens: signing out is the other way on.
          action={
            <Button
              size="small"
              onClick={async () => {
                await logout().catch(() => undefined);
                endSession();
                window.location.reload();
              }}
            >
              {t('account.signOut')}
            </Button>
          }
          data-testid="personal-password-required"
        />
      ) : null}
      <Form.Item
        name="password"
        label={t('personal.newPassword')}
        extra={t('personal.passwordHint', { min: MIN_PASSWORD_LENGTH })}
        rules={[{ min: MIN_PASSWORD_LENGTH, message: t('personal.passwordTooShort', { min: MIN_PASSWORD_LENGTH }) }]}
      >
        <Input.Password autoComplete="new-password" data-testid="personal-password" />
      </Form.Item>
      <Form.Item
        name="confirm"
        label={t('personal.confirmPassword')}
        dependencies={['password']}
        rules={[
          ({ getFieldValue }) => ({
            validator: (_rule, value) =>
              (value ?? '') === (getFieldValue('password') ?? '') ? Promise.resolve() : Promise.reject(new Error(t('personal.mismatch'))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" data-testid="personal-confirm" />
      </Form.Item>
      <Form.Item
        name="oldPassword"
        label={t('personal.oldPassword')}
        dependencies={['password']}
        rules={[
          ({ getFieldValue }) => ({
            validator: (_rule, value) =>
              !getFieldValue('password') || value ? Promise.resolve() : Promise.reject(new Error(t('personal.oldRequired'))),
          }),
        ]}
      >
        <Input.Password autoComplete="current-password" data-testid="personal-old-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="personal-save">
        {t('common.save')}
      </Button>
    </Form>
  );
}
