import { CheckCircleOutlined, UserOutlined } from '@ant-design/icons';
import { type Agent, grantable, serviceEditBody } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { Avatar, Button, Space, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../lib/access';
import { call } from '../../lib/api';
import { type Field, type FieldOption, ListPage } from '../shared/ListPage';
import { useListMutations } from '../shared/list';

const PRESENCE: FieldOption[] = [
  { value: 'online', label: 'service.online', status: 'success' },
  { value: 'hidden', label: 'service.hidden', status: 'warning' },
  { value: 'offline', label: 'service.offline', status: 'default' },
];

function AgentName({ agent }: { agent: Agent }) {
  return (
    <Space>
      <Avatar size="small" src={agent.avatar || undefined} icon={<UserOutlined />} />
      <span>
        <span className="cell-strong">{agent.nickname}</span>
        <span className="cell-sub">{agent.username}</span>
      </span>
    </Space>
  );
}

function AccountStatus({ agent }: { agent: Agent }) {
  const { t } = useTranslation();
  if (agent.pending) return <Tag color="orange">{t('service.pending')}</Tag>;
  return agent.disabled ? <Tag>{t('service.disabled')}</Tag> : <Tag color="green">{t('service.enabled')}</Tag>;
}

export default function ServicePage() {
  const { t } = useTranslation();
  const roles = useQuery({ queryKey: ['role', 'options'], queryFn: () => call('GET /api/service/roles', undefined, { silent: true }) });
  const { save } = useListMutations('service');
  const access = useAccess();
  // The server refuses what the user may not grant (CONTRACT §3); the page offers only the rest.
  const rolesById = new Map((roles.data?.list ?? []).map((role) => [role.id, role]));
  const mayGive = (roleId: number, roleName: string) =>
    grantable(access, { roles: [roleName], permissions: rolesById.get(roleId)?.permissions ?? [] });
  const roleOptions = (roles.data?.list ?? []).map((role) => ({ value: role.id, text: role.name }));
  const givable = roleOptions.filter((option) => mayGive(option.value, option.text));

  const fields: Field<Agent>[] = [
    { key: 'username', label: 'service.username', in: ['search', 'form'] },
    { key: 'nickname', label: 'service.agent', in: ['column'], width: 220, render: (agent) => <AgentName agent={agent} /> },
    { key: 'nickname', label: 'service.nickname', in: ['form'] },
    {
      key: 'password',
      label: 'service.password',
      kind: 'password',
      in: ['form'],
      required: (agent) => agent === null,
      extra: (agent) => (agent ? 'service.passwordKeep' : undefined),
    },
    { key: 'roleId', label: 'service.role', kind: 'select', in: ['search'], options: roleOptions },
    { key: 'roleId', label: 'service.role', kind: 'select', in: ['form'], options: givable },
    {
      key: 'roleName',
      label: 'service.role',
      in: ['column'],
      width: 120,
      render: (agent) => <Tag color={agent.roleName === 'Admin' ? 'gold' : 'blue'}>{agent.roleName}</Tag>,
    },
    { key: 'presence', label: 'service.presence', kind: 'select', in: ['column'], width: 110, options: PRESENCE },
    {
      key: 'disabled',
      label: 'service.status',
      kind: 'select',
      in: ['search'],
      options: [
        { value: 'false', label: 'service.enabled' },
        { value: 'true', label: 'service.disabled' },
      ],
    },
    { key: 'status', label: 'service.status', in: ['column'], width: 120, render: (agent) => <AccountStatus agent={agent} /> },
    { key: 'maxChats', label: 'service.maxChats', kind: 'number', in: ['column', 'form'], width: 110, sorter: true },
    { key: 'disabled', label: 'service.disabledLabel', kind: 'switch', in: ['form'] },
    { key: 'created_at', label: 'common.createdAt', kind: 'date', in: ['column'], width: 190, sorter: true },
  ];

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
    <ListPage
      area="service"
      fields={fields}
      schema={serviceEditBody}
      titles={{ create: 'service.createTitle', edit: 'service.editTitle' }}
      rowManageable={(agent) => mayGive(agent.roleId, agent.roleName)}
      // The built-in Agent role where the user may give it, else the first role they may give.
      initial={() => ({ roleId: (givable.find((option) => option.text === 'Agent') ?? givable[0])?.value, maxChats: 10, disabled: false })}
      rowActions={(agent) =>
        agent.pending && (
          <Button type="link" size="small" icon={<CheckCircleOutlined />} onClick={() => enable(agent)}>
            {t('service.enable')}
          </Button>
        )
      }
    />
  );
}
