import { CheckCircleOutlined, EditOutlined, PlusOutlined, SearchOutlined, UserOutlined } from '@ant-design/icons';
import { type Agent, grantable } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { Avatar, Badge, Button, Form, Input, InputNumber, Select, Space, Switch, Table, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../lib/access';
import { call } from '../../lib/api';
import { settings } from '../../lib/settings';
import { BatchDeleteButton, RowDeleteButton } from '../shared/DeleteButtons';
import { EditModal } from '../shared/EditModal';
import { formatTime, useListMutations, useListPage } from '../shared/list';

interface AgentForm {
  id?: number;
  username: string;
  nickname: string;
  password?: string;
  roleId: number;
  maxChats?: number;
  disabled?: boolean;
}

interface SearchValues {
  username?: string;
  roleId?: number;
  disabled?: 'true' | 'false';
}

function useRoleOptions() {
  return useQuery({
    queryKey: ['role', 'options'],
    queryFn: () => call('GET /api/service/roles', undefined, { silent: true }),
  });
}

export default function ServicePage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'en' ? 'en' : 'zh';
  const page = useListPage('service');
  const { save, remove } = useListMutations('service');
  const roles = useRoleOptions();
  const access = useAccess();
  // The server refuses what the user may not grant (CONTRACT §3); the page offers only the rest.
  const rolesById = new Map((roles.data?.list ?? []).map((role) => [role.id, role]));
  const mayGive = (roleId: number, roleName: string) =>
    grantable(access, { roles: [roleName], permissions: rolesById.get(roleId)?.permissions ?? [] });
  const mayManage = (agent: Agent) => mayGive(agent.roleId, agent.roleName);
  const roleOptions = (roles.data?.list ?? []).map((role) => ({ value: role.id, label: role.name }));
  const givableRoles = roleOptions.filter((option) => mayGive(option.value, option.label));
  const [editing, setEditing] = useState<AgentForm | null>(null);
  const [selected, setSelected] = useState<number[]>([]);
  const [form] = Form.useForm<AgentForm>();

  const open = (agent?: Agent) => {
    const value: AgentForm = agent
      ? {
          id: agent.id,
          username: agent.username,
          nickname: agent.nickname,
          roleId: agent.roleId,
          maxChats: agent.maxChats,
          disabled: agent.disabled,
        }
      : {
          username: '',
          nickname: '',
          // The built-in Agent role where the user may give it, else the first role they may give.
          roleId: (givableRoles.find((option) => option.label === 'Agent') ?? givableRoles[0])?.value ?? 0,
          maxChats: 10,
          disabled: false,
        };
    setEditing(value);
    form.setFieldsValue({ ...value, roleId: value.roleId || undefined } as AgentForm);
  };

  const submit = async () => {
    const values = await form.validateFields();
    await save.mutateAsync({ ...values, id: editing?.id, password: values.password || undefined });
    setEditing(null);
  };

  const enable = (agent: Agent) =>
    save.mutateAsync({
      id: agent.id,
      username: agent.username,
      nickname: agent.nickname,
      roleId: agent.roleId,
      maxChats: agent.maxChats,
      disabled: false,
    });

  return (
    <div className="page-card list-page" data-testid="service-page">
      <div className="list-toolbar">
        <Form<SearchValues>
          name="serviceSearch"
          layout="inline"
          onFinish={(values) =>
            page.search({ username: values.username?.trim() || undefined, roleId: values.roleId, disabled: values.disabled })
          }
        >
          <Form.Item name="username">
            <Input allowClear placeholder={t('service.username')} prefix={<SearchOutlined />} />
          </Form.Item>
          <Form.Item name="roleId">
            <Select
              allowClear
              aria-label={t('service.role')}
              placeholder={t('service.role')}
              style={{ width: 140 }}
              options={roleOptions}
            />
          </Form.Item>
          <Form.Item name="disabled">
            <Select
              allowClear
              aria-label={t('service.status')}
              placeholder={t('service.status')}
              style={{ width: 140 }}
              options={[
                { value: 'false', label: t('service.enabled') },
                { value: 'true', label: t('service.disabled') },
              ]}
            />
          </Form.Item>
          <Button type="primary" htmlType="submit">
            {t('common.search')}
          </Button>
        </Form>
        <Space wrap>
          <BatchDeleteButton count={selected.length} onConfirm={() => remove.mutateAsync(selected).then(() => setSelected([]))} />
          <Button type="primary" icon={<PlusOutlined />} onClick={() => open()} data-testid="service-create">
            {t('common.create')}
          </Button>
        </Space>
      </div>
      <Table<Agent>
        rowKey="id"
        loading={page.query.isFetching}
        dataSource={page.list}
        scroll={{ x: 1000 }}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys.map(Number)),
          getCheckboxProps: (agent) => ({ disabled: !mayManage(agent) }),
        }}
        pagination={page.pagination}
        columns={[
          {
            title: t('service.agent'),
            dataIndex: 'nickname',
            width: 220,
            render: (nickname: string, agent) => (
              <Space>
                <Avatar size="small" src={agent.avatar || undefined} icon={<UserOutlined />} />
                <span>
                  <span className="cell-strong">{nickname}</span>
                  <span className="cell-sub">{agent.username}</span>
                </span>
              </Space>
            ),
          },
          {
            title: t('service.role'),
            dataIndex: 'roleName',
            width: 120,
            render: (name: string) => <Tag color={name === 'Admin' ? 'gold' : 'blue'}>{name}</Tag>,
          },
          {
            title: t('service.presence'),
            dataIndex: 'state',
            width: 110,
            render: (state: Agent['state']) => (
              <Badge status={state === '0' ? 'success' : 'default'} text={t(state === '0' ? 'service.online' : 'service.hidden')} />
            ),
          },
          {
            title: t('service.status'),
            key: 'status',
            width: 120,
            render: (_, agent) =>
              agent.pending ? (
                <Tag color="orange">{t('service.pending')}</Tag>
              ) : agent.disabled ? (
                <Tag>{t('service.disabled')}</Tag>
              ) : (
                <Tag color="green">{t('service.enabled')}</Tag>
              ),
          },
          { title: t('service.maxChats'), dataIndex: 'maxChats', width: 110 },
          { title: t('common.createdAt'), dataIndex: 'created_at', width: 190, render: (value: string) => formatTime(value, lang) },
          {
            title: t('common.actions'),
            key: 'actions',
            width: 200,
            fixed: 'right',
            render: (_, agent) =>
              mayManage(agent) && (
                <Space size={0}>
                  {agent.pending && (
                    <Button type="link" size="small" icon={<CheckCircleOutlined />} onClick={() => enable(agent)}>
                      {t('service.enable')}
                    </Button>
                  )}
                  <Button type="link" size="small" icon={<EditOutlined />} onClick={() => open(agent)}>
                    {t('common.edit')}
                  </Button>
                  <RowDeleteButton onConfirm={() => remove.mutateAsync([agent.id])} />
                </Space>
              ),
          },
        ]}
      />
      <EditModal
        title={editing?.id ? t('service.editTitle') : t('service.createTitle')}
        open={editing !== null}
        saving={save.isPending}
        onSave={submit}
        onCancel={() => setEditing(null)}
      >
        <Form name="serviceEdit" form={form} layout="vertical" preserve={false}>
          <Form.Item
            name="username"
            label={t('service.username')}
            rules={[{ required: true, whitespace: true, message: t('service.usernameRequired') }, { max: 64 }]}
          >
            <Input maxLength={64} autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="nickname"
            label={t('service.nickname')}
            rules={[{ required: true, whitespace: true, message: t('service.nicknameRequired') }, { max: 64 }]}
          >
            <Input maxLength={64} />
          </Form.Item>
          <Form.Item
            name="password"
            label={t('service.password')}
            extra={editing?.id ? t('service.passwordKeep') : undefined}
            rules={[
              { required: !editing?.id, message: t('auth.passwordMin', { min: settings.minNewPasswordLength }) },
              { min: settings.minNewPasswordLength, message: t('auth.passwordMin', { min: settings.minNewPasswordLength }) },
            ]}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item name="roleId" label={t('service.role')} rules={[{ required: true, message: t('service.roleRequired') }]}>
            <Select options={givableRoles} loading={roles.isPending} />
          </Form.Item>
          <Form.Item name="maxChats" label={t('service.maxChats')}>
            <InputNumber min={1} max={100} style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="disabled" label={t('service.disabledLabel')} valuePropName="checked">
            <Switch />
          </Form.Item>
        </Form>
      </EditModal>
    </div>
  );
}
